import type { SwarmPort, SwarmServiceInfo, SwarmTask } from "@levelrail/docker/swarm";
import { DatabaseRoles, Labels, Roles } from "@levelrail/spec/naming";

// The swarm's task changes, as the worker learns them. On one engine the engine's event stream says
// when a container starts or dies; a swarm's tasks on other nodes send the manager no such event
// (the manager's stream has services and nodes, not tasks). A task the swarm replaced (a crash,
// a restarted engine) would leave its old address in the data plane until the next resync. So the
// worker lists the swarm's live tasks every couple of seconds (two calls, whatever the fleet's
// size) and wakes each service whose release services' tasks changed.

/**
 * Pure: per product service id, what its release services' live tasks are now (task id, state, node,
 * addresses). `owner` says which swarm services count and whose they are (default: the release
 * services, by product service id; `databaseOwner`: a pinned database's server, by database id).
 */
export function taskFingerprints(services: readonly SwarmServiceInfo[], tasks: readonly SwarmTask[], owner: (s: SwarmServiceInfo) => string | undefined = serviceOwner): Map<string, string> {
  const ownerOf = new Map<string, string>();
  for (const s of services) {
    const id = owner(s);
    if (id) ownerOf.set(s.id, id);
  }
  const parts = new Map<string, string[]>();
  for (const t of tasks) {
    const owner = ownerOf.get(t.serviceId);
    if (!owner) continue;
    const addresses = Object.values(t.addresses).sort().join("+");
    parts.set(owner, [...(parts.get(owner) ?? []), `${t.id}:${t.state}:${t.nodeId ?? "-"}:${addresses}`]);
  }
  for (const id of new Set(ownerOf.values())) if (!parts.has(id)) parts.set(id, []);
  return new Map([...parts].map(([id, list]) => [id, list.sort().join(",")]));
}

/** A release service's product service id. */
export const serviceOwner = (s: SwarmServiceInfo) => (s.labels[Labels.role] === Roles.service ? s.labels[Labels.service] : undefined);
/** A pinned database's server's database id. */
export const databaseOwner = (s: SwarmServiceInfo) => (s.labels[Labels.role] === DatabaseRoles.database ? s.labels[Labels.database] : undefined);

/** Pure: the service ids whose fingerprint differs between two looks (one that appeared or went too). */
export function changedServices(before: ReadonlyMap<string, string>, now: ReadonlyMap<string, string>): string[] {
  const ids = new Set([...before.keys(), ...now.keys()]);
  return [...ids].filter((id) => before.get(id) !== now.get(id)).sort();
}

export interface TaskWatchOptions {
  swarm: Pick<SwarmPort, "listServices" | "listRunningTasks">;
  shortName: string;
  /** Wakes a pinned database whose server's task changed (the database runner's enqueue). */
  wakeDatabase?: (databaseId: string) => void;
  /** Wakes the service's key (the application runner's enqueue). */
  wake(serviceId: string): void;
  intervalMs?: number;
  log(line: string): void;
}

/** Looks every `intervalMs` (2 s by default); the first look only learns what runs. `tick` is one look (tests). */
export function watchSwarmTasks(o: TaskWatchOptions): { start(): void; stop(): void; tick(): Promise<string[]> } {
  let last: Map<string, string> | null = null;
  let lastDatabases: Map<string, string> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let failing = false;
  let running = false;
  const tick = async (): Promise<string[]> => {
    const [services, tasks] = await Promise.all([o.swarm.listServices([`${Labels.instance}=${o.shortName}`]), o.swarm.listRunningTasks()]);
    const now = taskFingerprints(services, tasks);
    const changed = last ? changedServices(last, now) : [];
    last = now;
    for (const id of changed) o.wake(id);
    if (o.wakeDatabase) {
      const dbs = taskFingerprints(services, tasks, databaseOwner);
      if (lastDatabases) for (const id of changedServices(lastDatabases, dbs)) o.wakeDatabase(id);
      lastDatabases = dbs;
    }
    return changed;
  };
  return {
    start() {
      timer ??= setInterval(() => {
        if (running) return;
        running = true;
        tick()
          .then(() => {
            if (failing) o.log("the swarm's tasks are listed again");
            failing = false;
          })
          .catch((err: unknown) => {
            if (!failing) o.log(`cannot list the swarm's tasks (${err instanceof Error ? err.message : String(err)}); services wake at the resync meanwhile`);
            failing = true;
          })
          .finally(() => (running = false));
      }, o.intervalMs ?? 2_000);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
    tick,
  };
}
