import type { DesiredService, ServiceStore } from "./controllers/application/ports";

/** The store the snapshot reads through: one service by id, or all of them in one query. */
export interface DesiredSource extends ServiceStore {
  listDesiredServices(): Promise<DesiredService[]>;
}

/**
 * The application controller's `ServiceStore` with a resync's read batched: `load` reads every
 * service in one query, and each service's next pass takes its row from there instead of a query of
 * its own. A row is taken once; any later pass reads fresh. A row is never one a pass could miss a
 * change in: it is dropped when the service's desired state is announced changed (`invalidate`, from
 * NOTIFY), and a row is not kept for a service whose pass ran while the query did (that pass may
 * have written after the query's snapshot), nor survives the end of one (`passEnded`).
 */
export class DesiredSnapshot implements ServiceStore {
  private rows = new Map<string, DesiredService>();
  /** Services whose pass runs now. */
  private readonly running = new Set<string>();
  /** While a `load` is in flight: services changed or passed meanwhile, whose loaded row is stale. */
  private touched: Set<string> | null = null;

  constructor(private readonly source: DesiredSource) {}

  /** Reads every service in one query; returns their ids. Rows of a previous load left untaken are replaced. */
  async load(): Promise<string[]> {
    const touched = new Set<string>();
    this.touched = touched;
    try {
      const all = await this.source.listDesiredServices();
      const rows = new Map<string, DesiredService>();
      for (const s of all) if (!touched.has(s.id) && !this.running.has(s.id)) rows.set(s.id, s);
      this.rows = rows;
      return all.map((s) => s.id);
    } finally {
      if (this.touched === touched) this.touched = null;
    }
  }

  async getDesiredService(id: string): Promise<DesiredService | null> {
    const row = this.rows.get(id);
    if (row && this.running.has(id)) {
      this.rows.delete(id);
      return row;
    }
    this.rows.delete(id);
    return this.source.getDesiredService(id);
  }

  /** The service's desired state changed (a NOTIFY): its next pass reads it fresh. */
  invalidate(id: string): void {
    this.rows.delete(id);
    this.touched?.add(id);
  }

  /** A pass of the service starts (the runner's `start`): only a pass may take the row. */
  passStarted(id: string): void {
    this.running.add(id);
    this.touched?.add(id);
  }

  /** A pass of the service ended (done, error or terminal): what it wrote is read fresh by the next. */
  passEnded(id: string): void {
    this.running.delete(id);
    this.rows.delete(id);
    this.touched?.add(id);
  }

  /** The service's organization from a loaded row (the runner's tenant lookup, without a query of its own); null: no row. */
  orgOf(id: string): string | null {
    return this.rows.get(id)?.orgId ?? null;
  }

  /** Rows loaded and not yet taken. */
  get size(): number {
    return this.rows.size;
  }
}
