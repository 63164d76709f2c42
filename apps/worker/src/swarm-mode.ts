import { renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { statsCalls } from "@levelrail/docker";
import { type TaskReading, readTaskStats } from "@levelrail/docker/swarm/task-stats";
import { NODE_STATS_DIR } from "@levelrail/spec/dataplane";
import { readNodeStats } from "./metrics-sampler/swarm-targets";
import type Docker from "dockerode";
import type { SwarmPort } from "@levelrail/docker/swarm";
import { EDGE_HOME_LABEL, edgeAddress, edgeAdminConfig, edgeAdminSocket, edgeCaddyName, edgeName, joinEdge } from "@levelrail/docker/swarm/edge";
import type { Runtime } from "@levelrail/docker";
import { type CaddyAdmin, caddyAdminSocket } from "./controllers/ingress/caddy";
import { type TaskProber, edgeProber } from "./controllers/swarm-release/probe";

/** What the worker drives on a swarm: releases as swarm services, and Caddy in the edge namespace. */
export interface SwarmMode {
  swarmReleases: {
    join(network: string): Promise<unknown>;
    /** The edge namespace's address on the network (its mesh DNS answers there); null before it joined. */
    meshDns(network: string): Promise<string | null>;
    prober: TaskProber;
    /** One reading of every task container: the manager's own, and what the node agents sent lately. */
    taskReadings?: () => Promise<TaskReading[]>;
  };
  caddyAdmin: CaddyAdmin;
}

/**
 * The edge's Caddy admin, with every config it runs also written to `file` (`EDGE_CADDY_FILE`,
 * beside the data plane's state): the manager's mesh DNS hands it to the node agents, whose edges
 * load the same. Written when a load or a read shows a config other than the last written.
 */
export function mirroredCaddyAdmin(inner: CaddyAdmin, file: string): CaddyAdmin {
  let last = "";
  const mirror = (config: Record<string, unknown>) => {
    const text = JSON.stringify(config);
    if (text === last) return;
    writeFileSync(`${file}.${process.pid}.tmp`, `${text}\n`, { mode: 0o600 });
    renameSync(`${file}.${process.pid}.tmp`, file);
    last = text;
  };
  return {
    adminConfig: inner.adminConfig,
    async getConfig() {
      const config = await inner.getConfig();
      if (config) mirror(config);
      return config;
    },
    async load(config) {
      await inner.load(config);
      mirror(config);
    },
  };
}

type Inspected = { State?: { Running?: boolean }; Config?: { Entrypoint?: string[] | null; Labels?: Record<string, string> | null } };

/**
 * Releases run on the swarm (docs/operating/nodes-and-swarm.md) when this worker's engine is a swarm manager and the
 * edge ingress runs on it (`@levelrail/docker/swarm/edge`: its holder and Caddy): Caddy there reaches
 * the apps' overlays, where the tasks are. Otherwise null: containers on this engine, as on one
 * engine (a swarm manager without the edge keeps serving as it did).
 */
export async function swarmMode(docker: Docker, runtime: Pick<Runtime, "exec">, swarm: Pick<SwarmPort, "swarmInfo">, shortName: string, edgeCaddyFile?: string): Promise<SwarmMode | null> {
  const info = await swarm.swarmInfo();
  if (info.kind !== "swarm-manager") return null;
  const inspect = (name: string) =>
    (docker.getContainer(name).inspect() as Promise<Inspected>).catch((err: { statusCode?: number }) => {
      if (err.statusCode === 404) return null;
      throw err;
    });
  const [holder, caddy] = await Promise.all([inspect(edgeName(shortName)), inspect(edgeCaddyName(shortName))]);
  const node = holder?.Config?.Entrypoint?.[0];
  const stats = statsCalls(docker);
  const home = caddy?.Config?.Labels?.[EDGE_HOME_LABEL];
  if (!holder?.State?.Running || !node || !home) return null;
  return {
    swarmReleases: {
      join: (network) => joinEdge(docker, shortName, network),
      meshDns: (network) => edgeAddress(docker, shortName, network),
      prober: edgeProber(runtime, edgeName(shortName), node),
      ...(edgeCaddyFile
        ? {
            taskReadings: async () => {
              const local = await readTaskStats(docker, stats, shortName).catch(() => []);
              return [...local, ...readNodeStats(join(dirname(edgeCaddyFile), NODE_STATS_DIR), Date.now())];
            },
          }
        : {}),
    },
    caddyAdmin: edgeCaddyFile ? mirroredCaddyAdmin(caddyAdminSocket(edgeAdminSocket(home), edgeAdminConfig(home)), edgeCaddyFile) : caddyAdminSocket(edgeAdminSocket(home), edgeAdminConfig(home)),
  };
}
