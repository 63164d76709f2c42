// The real probes: the engine through dockerode, PostgreSQL through postgres.js, Caddy's pid file.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Docker from "dockerode";
import postgres from "postgres";
import { parseDockerHost } from "@levelrail/docker/host";
import type { OverlayIpsec } from "@levelrail/docker/swarm/ipsec";
import { MIGRATIONS_DIR } from "@levelrail/db/migrate";
import { DataPlaneRoles, Labels, instanceFilter } from "@levelrail/spec/naming";
import type { BackupSchedule } from "@levelrail/spec/database";
import type { BackupRow, DbProbe, HeartbeatRow, JournalEntry, Leader } from "./database";
import type { EngineInfo, EngineProbe } from "./engine";
import type { OurCaddy } from "./ports";
import { type ProcFs, describeProc } from "./procfs";
import { PROBE_TIMEOUT_MS } from "./dataplane";
import { once } from "./result";
import { type EngineInfo as SwarmEngineInfo, type EngineNode, engineKind, nodeView } from "@levelrail/docker/swarm/nodes";
import { edgeCaddyName, edgeName } from "@levelrail/docker/swarm/edge";
import type { SwarmProbe } from "./swarm";
import { EDGE_ACKS_FILE, edgeAcksSchema, nodeAgentName } from "@levelrail/spec/dataplane";

/** The engine of `DOCKER_HOST` (or the local socket), every request under the probe deadline. */
export function dockerOf(dockerHost: string | undefined): Docker {
  return new Docker({ ...(dockerHost ? parseDockerHost(dockerHost) : {}), timeout: PROBE_TIMEOUT_MS });
}

export function dockerEngineProbe(docker: Docker, where: string): EngineProbe {
  const info = once(async (): Promise<EngineInfo> => {
    const sentAt = Date.now();
    const i = (await docker.info()) as { ServerVersion?: string; LiveRestoreEnabled?: boolean; DockerRootDir?: string; SystemTime?: string; Swarm?: { LocalNodeState?: string } };
    const receivedAt = Date.now();
    const v = (await docker.version().catch(() => null)) as { ApiVersion?: string } | null;
    return {
      serverVersion: i.ServerVersion ?? "?",
      apiVersion: v?.ApiVersion ?? null,
      liveRestore: i.LiveRestoreEnabled === true,
      swarm: i.Swarm?.LocalNodeState === "active",
      rootDir: i.DockerRootDir ?? "/var/lib/docker",
      systemTime: i.SystemTime ?? "",
      sentAt,
      receivedAt,
    };
  });
  return { where, info };
}

export const caddyPidFile = (dataDir: string) => join(dataDir, "caddy", "caddy.pid");

/**
 * Our Caddy's host pids: every running container labelled as this installation's ingress (it runs
 * on the host's pid namespace's view as `State.Pid`), and the live Caddy whose pid is in
 * `<data dir>/caddy/caddy.pid` (how `npm start` ran it before the engine supervised it).
 */
export async function findOurCaddy(o: { docker: Docker | null; shortName: string; dataDir: string; proc: ProcFs }): Promise<OurCaddy> {
  const pids = new Map<number, string>();
  if (o.docker) {
    const label = [...instanceFilter(o.shortName), `${Labels.role}=${DataPlaneRoles.ingress}`];
    const list = await o.docker.listContainers({ filters: { label } }).catch(() => []);
    for (const c of list) {
      const pid = await o.docker
        .getContainer(c.Id)
        .inspect()
        .then((i) => i.State.Pid)
        .catch(() => 0);
      if (pid > 0) pids.set(pid, `container ${(c.Names[0] ?? c.Id).replace(/^\//, "")}`);
    }
  }
  const file = caddyPidFile(o.dataDir);
  const pid = (() => {
    try {
      return Number(readFileSync(file, "utf8").trim());
    } catch {
      return 0;
    }
  })();
  if (pid > 0 && !pids.has(pid) && describeProc(o.proc, pid).cmdline.includes("caddy")) pids.set(pid, `pid file ${file}`);
  return { pids };
}

/**
 * The mesh DNS replicas to ask: the `levelrail.replica` label of each of this installation's mesh
 * DNS containers (replica r serves on LEVELRAIL_MESH_DNS_PORT + r), or [0]: a single process, as
 * `npm start` ran it before the engine supervised the data plane.
 */
export async function meshDnsReplicas(docker: Docker | null, shortName: string): Promise<number[]> {
  if (!docker) return [0];
  const label = [...instanceFilter(shortName), `${Labels.role}=${DataPlaneRoles.meshDns}`];
  const list = await docker.listContainers({ all: true, filters: { label } }).catch(() => []);
  const replicas = new Set(list.map((c) => Number(c.Labels["levelrail.replica"] ?? "0")).filter((r) => Number.isInteger(r) && r >= 0 && r < 8));
  return replicas.size ? [...replicas].sort((a, b) => a - b) : [0];
}

/** `host:port/database` of a URL: never its user or password. */
export function databaseWhere(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return "the database (its URL does not parse)";
  }
}

export function readJournal(dir = MIGRATIONS_DIR): JournalEntry[] {
  const j = JSON.parse(readFileSync(join(dir, "meta", "_journal.json"), "utf8")) as { entries: { tag: string; when: number }[] };
  return j.entries.map((e) => ({ tag: e.tag, when: e.when }));
}

const UNDEFINED_TABLE = "42P01";
const missingTable = (err: unknown) => (err as { code?: string }).code === UNDEFINED_TABLE;

/** The database probe over one small pool; `close()` ends it. */
export function postgresProbe(url: string | undefined, o: { shortName: string; lockName: string }): DbProbe & { close(): Promise<void> } {
  const sql = url
    ? postgres(url, { max: 2, connect_timeout: PROBE_TIMEOUT_MS / 1000, idle_timeout: 1, onnotice: () => {}, connection: { application_name: "levelrail doctor" } })
    : null;
  const need = () => {
    if (!sql) throw new Error("no database URL");
    return sql;
  };
  const version = once(async () => {
    const [row] = await need()<{ version: string }[]>`select version() as version`;
    return row?.version ?? "PostgreSQL";
  });
  return {
    where: url ? databaseWhere(url) : null,
    version,
    journal: () => readJournal(),
    async applied() {
      try {
        const rows = await need()<{ created_at: string }[]>`select created_at from drizzle.__drizzle_migrations`;
        return rows.map((r) => Number(r.created_at));
      } catch (err) {
        if (missingTable(err) || (err as { code?: string }).code === "3F000") return null;
        throw err;
      }
    },
    async leader(): Promise<Leader | null> {
      // A session advisory lock on one bigint key shows in pg_locks as its high (classid) and low (objid) halves.
      const [row] = await need()<{ pid: number; client: string | null }[]>`
        select l.pid, a.client_addr::text as client
        from pg_locks l left join pg_stat_activity a on a.pid = l.pid
        where l.locktype = 'advisory' and l.granted and l.objsubid = 1
          and l.database = (select oid from pg_database where datname = current_database())
          and ((l.classid::bigint << 32) | l.objid::bigint) = hashtext(${o.lockName})::bigint
        limit 1`;
      return row ? { pid: row.pid, client: row.client } : null;
    },
    async heartbeat(): Promise<HeartbeatRow | null> {
      try {
        const [row] = await need()<{ runner: string; leading_for: string; pass_age: string | null; resync_seconds: number }[]>`
          select runner, extract(epoch from now() - leading_since) as leading_for,
                 extract(epoch from now() - last_pass_at) as pass_age, resync_seconds
          from worker_heartbeat where short_name = ${o.shortName}`;
        if (!row) return null;
        return { runner: row.runner, leadingForS: Number(row.leading_for), passAgeS: row.pass_age === null ? null : Number(row.pass_age), resyncSeconds: row.resync_seconds };
      } catch (err) {
        if (missingTable(err)) return null;
        throw err;
      }
    },
    async backups() {
      const rows = await need()<{ database: string; schedule: BackupSchedule | null; schedule_since: Date | null; created_at: Date; last_verified: Date | null; now: Date }[]>`
        select p.name || '/' || e.name || '/' || d.name as database, d.backup_schedule as schedule,
               d.schedule_since, d.created_at, now() as now,
               (select max(b.finished_at) from backup b
                 where b.database_id = d.id and b.status = 'verified' and b.pruned_at is null) as last_verified
        from managed_database d join environment e on e.id = d.environment_id join project p on p.id = e.project_id
        order by 1`;
      const [now] = rows.length ? [rows[0]!.now] : (await need()<{ now: Date }[]>`select now() as now`).map((r) => r.now);
      const out: BackupRow[] = rows.map((r) => ({
        database: r.database,
        cron: r.schedule?.cron ?? null,
        scheduleSince: r.schedule_since,
        createdAt: r.created_at,
        lastVerifiedAt: r.last_verified,
      }));
      return { now: now ?? new Date(), rows: out };
    },
    async pinned() {
      const rows = await need()<{ database: string; node_id: string }[]>`
        select p.name || '/' || e.name || '/' || d.name as database, d.node_id
        from managed_database d join environment e on e.id = d.environment_id join project p on p.id = e.project_id
        where d.node_id is not null
        order by 1`;
      return rows.map((r) => ({ database: r.database, nodeId: r.node_id }));
    },
    async close() {
      await sql?.end({ timeout: 0 });
    },
  };
}

/** What the `swarm` check asks the engine: its kind, the nodes (a manager's view) and the edge's two containers. */
/** The node agents' service: null when it does not exist; else where its tasks run. */
async function nodeAgents(docker: Docker, shortName: string, acksFile: string | null): Promise<{ self: string; runningOn: string[]; silent: string[] } | null> {
  const self = ((await docker.info()) as { Swarm?: { NodeID?: string } }).Swarm?.NodeID ?? "";
  const name = nodeAgentName(shortName);
  const services = (await docker.listServices({ filters: JSON.stringify({ name: [name] }) } as never)) as unknown as { ID: string; Spec?: { Name?: string } }[];
  const svc = services.find((x) => x.Spec?.Name === name);
  if (!svc) return null;
  const tasks = (await docker.listTasks({ filters: JSON.stringify({ service: [svc.ID], "desired-state": ["running"] }) } as never)) as unknown as { NodeID?: string; Status?: { State?: string } }[];
  const runningOn = tasks.filter((t) => t.Status?.State === "running" && t.NodeID).map((t) => t.NodeID!);
  // The agents' last reads of the feed, as the manager's mesh DNS recorded them.
  let acks: Record<string, { seenAt: number }> = {};
  try {
    if (acksFile) acks = edgeAcksSchema.parse(JSON.parse(readFileSync(acksFile, "utf8"))).nodes;
  } catch {
    // none yet: every agent is silent
  }
  const silent = acksFile ? runningOn.filter((id) => !(Date.now() - (acks[id]?.seenAt ?? 0) < 15_000)) : [];
  return { self, runningOn, silent };
}

/**
 * `dataplaneDir`: where the manager's mesh DNS records the agents' reads (null: not checked).
 * `ipsec`: asks whether this host's kernel can encrypt overlays (absent: not asked).
 */
export function dockerSwarmProbe(docker: Docker, shortName: string, dataplaneDir: string | null = null, o: { ipsec?: () => OverlayIpsec } = {}): SwarmProbe {
  const running = async (name: string) => {
    try {
      return ((await docker.getContainer(name).inspect()) as { State?: { Running?: boolean } }).State?.Running === true;
    } catch {
      return false;
    }
  };
  return {
    async facts() {
      const kind = engineKind((await docker.info()) as SwarmEngineInfo);
      if (kind !== "swarm-manager") return { kind, nodes: [], edge: { holder: false, caddy: false } };
      const [nodes, holder, caddy] = await Promise.all([docker.listNodes() as Promise<EngineNode[]>, running(edgeName(shortName)), running(edgeCaddyName(shortName))]);
      return { kind, nodes: nodes.map(nodeView), edge: { holder, caddy }, agents: await nodeAgents(docker, shortName, dataplaneDir && join(dataplaneDir, EDGE_ACKS_FILE)), ...(o.ipsec ? { ipsec: o.ipsec() } : {}) };
    },
  };
}
