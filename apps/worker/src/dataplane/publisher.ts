import { mkdirSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { type ActiveEntry, type DataPlaneState, type MeshPort, emptyDataPlaneState } from "@levelrail/spec/dataplane";
import { canonicalJson } from "@levelrail/spec/env";
import { readStateFile } from "@levelrail/dataplane/state";

/**
 * The worker's side of the data plane: what the controllers decide (the active container of each
 * service, the domain → service map) written as one file the data-plane process follows. Starts
 * from the file as it is (a restarted worker changes nothing until a controller says so), writes
 * only when something changed, whole files through a rename, one write at a time.
 */
export class StatePublisher implements MeshPort {
  private state: DataPlaneState;
  private chain: Promise<void> = Promise.resolve();
  private next: Promise<void> | null = null;
  /** serviceId → the generation of the write that gave its entry the value it has now (writes of this process). */
  private readonly entryGeneration = new Map<string, number>();
  /** Services whose entry changed since the last write began. */
  private readonly unwritten = new Set<string>();

  constructor(private readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    const r = readStateFile(file);
    this.state = "state" in r ? r.state : emptyDataPlaneState();
  }

  current(): DataPlaneState {
    return this.state;
  }

  /**
   * The generation from which the state has `serviceId`'s entry as it is now: an edge that applied
   * it routes the service as the controllers last said, whatever changed for other services since
   * (a busy fleet writes every few hundred ms; waiting for the newest generation would wait for
   * ever). Not written yet: none has it (MAX_SAFE_INTEGER); unchanged since this process began:
   * the current generation (all this process knows).
   */
  generationOf(serviceId: string): number {
    if (this.unwritten.has(serviceId)) return Number.MAX_SAFE_INTEGER;
    return this.entryGeneration.get(serviceId) ?? this.state.generation;
  }

  setActive(serviceId: string, entry: ActiveEntry | null): Promise<void> {
    const had = this.state.services[serviceId];
    if (entry === null ? had === undefined : had !== undefined && canonicalJson(had) === canonicalJson(entry)) return this.next ?? Promise.resolve();
    const services = { ...this.state.services };
    if (entry) services[serviceId] = entry;
    else delete services[serviceId];
    this.state = { ...this.state, services };
    this.unwritten.add(serviceId);
    return this.schedule();
  }

  /** The whole domain map (domain → service id). */
  setDomains(domains: Record<string, string>): Promise<void> {
    if (canonicalJson(domains) === canonicalJson(this.state.domains)) return this.next ?? Promise.resolve();
    this.state = { ...this.state, domains };
    return this.schedule();
  }

  /** Drops entries of services that exist no more (resync: a service deleted while the worker was down). */
  retain(serviceIds: Set<string>): Promise<void> {
    const gone = Object.keys(this.state.services).filter((id) => !serviceIds.has(id));
    if (gone.length === 0) return this.next ?? Promise.resolve();
    const services = { ...this.state.services };
    for (const id of gone) {
      delete services[id];
      this.unwritten.add(id);
    }
    this.state = { ...this.state, services };
    return this.schedule();
  }

  /** Resolves once a write that includes every change made so far is on disk. */
  private schedule(): Promise<void> {
    if (!this.next) {
      const run = this.chain.then(async () => {
        this.next = null; // later changes need a write of their own
        const snapshot = { ...this.state, generation: this.state.generation + 1 };
        this.state = { ...this.state, generation: snapshot.generation };
        for (const id of this.unwritten) this.entryGeneration.set(id, snapshot.generation);
        this.unwritten.clear();
        const tmp = `${this.file}.${process.pid}.tmp`;
        await writeFile(tmp, JSON.stringify(snapshot) + "\n");
        await rename(tmp, this.file);
      });
      this.chain = run.catch(() => {}); // a failed write fails its callers, not the next write
      this.next = run;
    }
    return this.next;
  }
}
