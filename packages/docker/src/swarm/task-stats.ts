import type Docker from "dockerode";
import type { Runtime } from "../ports";
import type { ContainerStats } from "../stats";

/** The label the engine puts on a swarm task's container: the task's id. */
export const TASK_ID_LABEL = "com.docker.swarm.task.id";

/** One reading of one task's container on a node. */
export interface TaskReading {
  taskId: string;
  container: string;
  stats: ContainerStats;
}

/**
 * One reading of every running task container of this installation on `docker`'s node (a one-shot
 * stats read each, as the metrics sampler reads a container). On a swarm, stats of a task exist only
 * on its own node's engine: each node agent reads its node's, the worker the manager's.
 */
export async function readTaskStats(docker: Docker, stats: Pick<Runtime, "containerStats">, shortName: string): Promise<TaskReading[]> {
  const list = await docker.listContainers({ filters: JSON.stringify({ label: [`levelrail.instance=${shortName}`, TASK_ID_LABEL], status: ["running"] }) });
  const out: TaskReading[] = [];
  await Promise.all(
    list.map(async (c) => {
      const taskId = c.Labels?.[TASK_ID_LABEL];
      if (!taskId) return;
      const s = await stats.containerStats(c.Id).catch(() => null);
      if (s) out.push({ taskId, container: (c.Names?.[0] ?? c.Id).replace(/^\//, ""), stats: s });
    }),
  );
  return out.sort((a, b) => a.taskId.localeCompare(b.taskId));
}
