import type { ContainerEvent, ContainerSummary, ManagedContainer, Runtime } from "@levelrail/docker";
import { Labels, instanceFilter } from "@levelrail/spec/naming";

/** What the informer asks of the engine. */
export type InformerRuntime = Pick<Runtime, "listContainersBrief" | "inspectContainer" | "watchContainers">;

export interface ContainerInformerOptions {
  runtime: InformerRuntime;
  shortName: string;
  /** After the index took in a container event (the container re-inspected, or dropped): a handler reads it fresh. */
  onEvent?: (e: ContainerEvent) => void;
  /** The event stream came back after a gap (the engine restarted), once everything was inspected again (or that failed). */
  onReconnected?: () => void;
  log: (line: string) => void;
}

interface Entry {
  container: ManagedContainer;
  /** The list's status text without its durations, when it was inspected: a relist re-inspects it when that changes. */
  status: string;
  /** The request that wrote it: a result of an older request never overwrites a newer one. */
  seq: number;
}

/**
 * Every container of this instance, in memory (the Kubernetes shared informer): filled by one listing
 * at start, kept fresh by the engine's container events (each re-inspects only the container it
 * names), and checked by a relist that is one engine call (re-inspecting only what is new or whose
 * state changed). Whoever changes a container tells the informer (`refresh`, `forget`), so a reader
 * after that sees the change without waiting for its event.
 *
 * Requests race (an event's inspect, a relist, the executor's refresh): each gets a sequence number
 * when issued, and a result is applied only if no later request for that container was applied.
 */
export class ContainerInformer {
  private readonly entries = new Map<string, Entry>();
  /** Service id → ids of its containers. */
  private readonly services = new Map<string, Set<string>>();
  /** Managed database id → ids of its containers (its server and one-offs). */
  private readonly databases = new Map<string, Set<string>>();
  /** Containers known gone, with the request that found it out; cleared by relists. */
  private readonly gone = new Map<string, number>();
  /** Containers whose refresh failed (the engine hiccuped): the next relist inspects them again. */
  private readonly stale = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private seq = 0;
  private relisting: Promise<void> = Promise.resolve();
  private connections = 0;
  private unwatch: (() => void) | null = null;

  constructor(private readonly o: ContainerInformerOptions) {}

  /** Subscribes to the events, then lists everything (inspecting each): the index is complete when this resolves. */
  async start(): Promise<void> {
    if (this.unwatch) throw new Error("the container informer is already started");
    this.unwatch = this.o.runtime.watchContainers(
      instanceFilter(this.o.shortName),
      (e) => this.onEvent(e),
      () => this.onConnected(),
    );
    await this.relist();
  }

  stop(): void {
    this.unwatch?.();
    this.unwatch = null;
  }

  /** The containers of one service (its hook containers included), by its id. */
  byService(serviceId: string): ManagedContainer[] {
    return [...(this.services.get(serviceId) ?? [])].flatMap((id) => this.entries.get(id)?.container ?? []);
  }

  /** The containers of one managed database (its server and its one-offs), by its id. */
  byDatabase(databaseId: string): ManagedContainer[] {
    return [...(this.databases.get(databaseId) ?? [])].flatMap((id) => this.entries.get(id)?.container ?? []);
  }

  /** Every container in the index. */
  list(): ManagedContainer[] {
    return [...this.entries.values()].map((e) => e.container);
  }

  /** The ids of every service that has a container. */
  serviceIds(): Set<string> {
    return new Set(this.services.keys());
  }

  /** Inspects one container (by id or name) now and takes in what the engine says, gone included. */
  refresh(idOrName: string): Promise<void> {
    return this.track(this.inspect(idOrName, ++this.seq, ""));
  }

  /** The container is gone (removed by whoever tells this). */
  forget(id: string): void {
    const seq = ++this.seq;
    this.drop(id);
    this.gone.set(id, seq);
    this.stale.delete(id);
  }

  /**
   * Lists this instance's containers in one engine call and inspects only those that are new, changed
   * (state, status, name or addresses) or whose last refresh failed; drops those the engine no longer
   * has. `full`: inspect every one (after a gap in the events, when anything may have changed).
   * Relists run one at a time.
   */
  relist(full = false): Promise<void> {
    const run = this.relisting.then(() => this.relistNow(full));
    this.relisting = run.catch(() => {});
    return run;
  }

  /** Resolves once every refresh started so far (events' included) has been taken in. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async relistNow(full: boolean): Promise<void> {
    const start = ++this.seq;
    const listed = await this.o.runtime.listContainersBrief(instanceFilter(this.o.shortName));
    const seen = new Set<string>();
    const inspects: Promise<void>[] = [];
    for (const s of listed) {
      seen.add(s.id);
      const known = this.entries.get(s.id);
      if (known && known.seq > start) continue; // refreshed since the list was asked for
      if (full || !known || this.stale.has(s.id) || changed(known, s)) inspects.push(this.inspect(s.id, ++this.seq, statusKey(s.status)));
    }
    for (const [id, e] of this.entries) if (!seen.has(id) && e.seq < start) this.drop(id);
    for (const [id, seq] of this.gone) if (seq < start) this.gone.delete(id);
    await this.track(Promise.all(inspects).then(() => {}));
  }

  private async inspect(idOrName: string, seq: number, status: string): Promise<void> {
    let c: ManagedContainer | null;
    try {
      c = await this.o.runtime.inspectContainer(idOrName);
    } catch (err) {
      const known = this.entries.get(idOrName) ?? this.byName(idOrName);
      if (known) this.stale.add(known.container.id);
      throw err;
    }
    if (c === null) {
      // Gone. By name: whatever had that name and was not written since.
      const known = this.entries.get(idOrName) ?? this.byName(idOrName);
      if (known && known.seq < seq) {
        this.drop(known.container.id);
        this.gone.set(known.container.id, seq);
        this.stale.delete(known.container.id);
      }
      return;
    }
    if (!isOurs(c, this.o.shortName)) return;
    const known = this.entries.get(c.id);
    if ((known && known.seq > seq) || (this.gone.get(c.id) ?? 0) > seq) return;
    this.put({ container: c, status: status || statusFromInspect(c), seq });
    this.gone.delete(c.id);
    this.stale.delete(c.id);
  }

  private put(e: Entry): void {
    const { id, labels } = e.container;
    this.entries.set(id, e);
    index(this.services, labels[Labels.service], id);
    index(this.databases, labels[Labels.database], id);
  }

  private drop(id: string): void {
    const labels = this.entries.get(id)?.container.labels;
    this.entries.delete(id);
    unindex(this.services, labels?.[Labels.service], id);
    unindex(this.databases, labels?.[Labels.database], id);
  }

  private byName(name: string): Entry | undefined {
    for (const e of this.entries.values()) if (e.container.name === name) return e;
    return undefined;
  }

  private onEvent(e: ContainerEvent): void {
    if (!e.id || !CHANGES.some((a) => e.action === a || e.action.startsWith(`${a}:`))) return void this.o.onEvent?.(e);
    const seen =
      e.action === "destroy"
        ? Promise.resolve(this.forget(e.id))
        : this.inspect(e.id, ++this.seq, "").catch((err: unknown) => this.o.log(`[informer] inspecting ${e.id.slice(0, 12)} after ${e.action}: ${describe(err)}`));
    void this.track(seen.then(() => this.o.onEvent?.(e)));
  }

  private onConnected(): void {
    // The first connection: the start's listing covers it. Later ones follow a gap in which events were lost.
    if (this.connections++ === 0) return;
    this.o.log("[informer] the engine's event stream is back: inspecting every container again");
    // Told even when the relist failed (the engine flapping): its resync relists again.
    void this.track(
      this.relist(true)
        .catch((err: unknown) => this.o.log(`[informer] relist after reconnecting: ${describe(err)}`))
        .finally(() => this.o.onReconnected?.()),
    );
  }

  private track(p: Promise<void>): Promise<void> {
    this.inFlight.add(p);
    const done = () => this.inFlight.delete(p);
    p.then(done, done);
    return p;
  }
}

function index(by: Map<string, Set<string>>, value: string | undefined, id: string): void {
  if (value) by.set(value, (by.get(value) ?? new Set()).add(id));
}

function unindex(by: Map<string, Set<string>>, value: string | undefined, id: string): void {
  const ids = value === undefined ? undefined : by.get(value);
  if (value === undefined || !ids) return;
  ids.delete(id);
  if (ids.size === 0) by.delete(value);
}

/** Actions that change what an inspect shows (exec_*, attach, resize, … do not). */
const CHANGES = ["create", "start", "restart", "die", "kill", "oom", "stop", "pause", "unpause", "update", "rename", "destroy", "health_status"];

function isOurs(c: ManagedContainer, shortName: string): boolean {
  return c.labels[Labels.managed] === "true" && c.labels[Labels.instance] === shortName;
}

/** Whether the list shows a container differently from when it was inspected. */
function changed(known: Entry, s: ContainerSummary): boolean {
  const c = known.container;
  return c.state !== s.state || c.name !== s.name || known.status !== statusKey(s.status) || !sameAddresses(c.addresses, s.addresses);
}

function sameAddresses(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/**
 * The engine's status text without its durations, which change by themselves (`Up 5 minutes
 * (healthy)` → `Up (healthy)`, `Exited (1) 3 seconds ago` → `Exited (1)`): what is left changes
 * only when the container does.
 */
export function statusKey(status: string): string {
  return status
    .replace(/\s*(Less than a second|About an? (minute|hour)|\d+ (second|minute|hour|day|week|month|year)s?)( ago)?/g, "")
    .trim();
}

/** The status key an inspected container would list with (for one that was inspected before it was listed). */
function statusFromInspect(c: ManagedContainer): string {
  switch (c.state) {
    case "created":
      return "Created";
    case "running":
      return "Up";
    case "paused":
      return "Up (Paused)";
    case "restarting":
      return `Restarting (${c.exitCode ?? 0})`;
    case "removing":
      return "Removal In Progress";
    case "exited":
      return `Exited (${c.exitCode ?? 0})`;
    case "dead":
      return "Dead";
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
