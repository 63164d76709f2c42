import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { ContainerStats, Runtime } from "@levelrail/docker";
import type { TaskReading } from "@levelrail/docker/swarm/task-stats";
import { storedNodeStatsSchema } from "@levelrail/spec/dataplane";
import type { ActiveService, SampleTarget } from "./sampler";

/** How old a node agent's readings may be and still count (it sends every 5 s). */
export const NODE_STATS_FRESH_MS = 30_000;

/** The readings the node agents sent lately (`<dataplane>/node-stats/<node>.json`); stale and broken files are skipped. */
export function readNodeStats(dir: string, now: number, freshMs = NODE_STATS_FRESH_MS): TaskReading[] {
  if (!existsSync(dir)) return [];
  const out: TaskReading[] = [];
  for (const f of readdirSync(dir)) {
    if (!f.endsWith(".json")) continue;
    try {
      const parsed = storedNodeStatsSchema.safeParse(JSON.parse(readFileSync(join(dir, f), "utf8")));
      if (parsed.success && now - parsed.data.at < freshMs) out.push(...parsed.data.readings);
    } catch {
      // being replaced: the next round reads it
    }
  }
  return out;
}

/**
 * On a swarm (docs/operating/nodes-and-swarm.md: metrics per task): the sampler's targets are the active release's tasks
 * of each service, each read where its stats are (the manager's own engine for its tasks, the node
 * agents' readings for the others'), through a `containerStats` that answers from this round's
 * readings. A task is sampled as its container (`<service>.<slot>.<task id>`), so the service's
 * samples are its tasks'.
 */
export function swarmSampling(o: {
  active: () => Promise<ActiveService[]>;
  /** The active release's tasks of a service (the data plane's state). */
  tasksOf: (serviceId: string) => readonly { name: string }[];
  readings: () => Promise<TaskReading[]>;
}): { targets: () => Promise<SampleTarget[]>; runtime: Pick<Runtime, "containerStats"> } {
  let byTask = new Map<string, TaskReading>();
  return {
    async targets() {
      byTask = new Map((await o.readings()).map((r) => [r.taskId, r]));
      return (await o.active()).flatMap((a) =>
        o.tasksOf(a.serviceId).flatMap((t) => {
          const r = byTask.get(t.name);
          return r ? [{ ...a, containerId: `task:${t.name}`, container: r.container }] : [];
        }),
      );
    },
    runtime: {
      containerStats: async (id: string): Promise<ContainerStats | null> => (id.startsWith("task:") ? (byTask.get(id.slice(5))?.stats ?? null) : null),
    },
  };
}
