// `levelrail doctor [--json]`: checks an installation and says what is wrong, one line per check.
// It asks, and changes nothing: it starts no database (PostgreSQL down is a failed check, and the
// other checks still run), and every check has a deadline, so it never hangs.
import { join } from "node:path";
import { databaseUrl, envSchema, parseEnv } from "@levelrail/config/env";
import { DATAPLANE_DIR, DATAPLANE_STATE_FILE } from "@levelrail/spec/dataplane";
import { meshZone } from "@levelrail/spec/naming";
import { backupsCheck, migrationsCheck, postgresCheck, workerCheck } from "./database";
import { caddyAdminCheck, dnsQueryA, httpCaddyProbe, httpGet, meshDnsCheck, readState } from "./dataplane";
import { dataDiskCheck, engineDiskCheck } from "./disk";
import { clockCheck, engineCheck, liveRestoreCheck } from "./engine";
import { portCheck, procPortProbe } from "./ports";
import { dockerEngineProbe, dockerOf, dockerSwarmProbe, findOurCaddy, meshDnsReplicas, postgresProbe } from "./probes";
import { swarmCheck } from "./swarm";
import { edgeCaddyName, edgeName } from "@levelrail/docker/swarm/edge";
import { probeOverlayIpsec } from "@levelrail/docker/swarm/ipsec";
import { hostProc } from "./procfs";
import { type Check, type CheckResult, allOk, formatJson, formatLines, runChecks } from "./result";

export const doctorEnv = envSchema.pick({
  DATABASE_URL: true,
  DATABASE_PASSWORD_FILE: true,
  LEVELRAIL_DATA_DIR: true,
  LEVELRAIL_SHORT_NAME: true,
  DOCKER_HOST: true,
  LEVELRAIL_CADDY_ADMIN: true,
  LEVELRAIL_INGRESS_HTTP_PORT: true,
  LEVELRAIL_INGRESS_HTTPS_PORT: true,
  LEVELRAIL_INGRESS_TLS: true,
  LEVELRAIL_MESH_DNS_PORT: true,
});

/** The worker's leader lock (apps/worker/src/main.ts names it so). */
export const leaderLockName = (shortName: string) => `levelrail.worker.${shortName}`;

/** Runs every check against this host; the results in a fixed order. */
export async function diagnose(vars: NodeJS.ProcessEnv): Promise<CheckResult[]> {
  const env = parseEnv(doctorEnv, vars, "levelrail doctor");
  const short = env.LEVELRAIL_SHORT_NAME;
  const dataDir = env.LEVELRAIL_DATA_DIR;
  const local = !env.DOCKER_HOST || env.DOCKER_HOST.startsWith("unix://");
  const docker = dockerOf(env.DOCKER_HOST);
  const engine = dockerEngineProbe(docker, env.DOCKER_HOST ?? "unix:///var/run/docker.sock");
  // an installation's DATABASE_URL has no password: it is in DATABASE_PASSWORD_FILE (levelrail install)
  const url = env.DATABASE_URL ? databaseUrl({ DATABASE_URL: env.DATABASE_URL, DATABASE_PASSWORD_FILE: env.DATABASE_PASSWORD_FILE }) : undefined;
  const db = postgresProbe(url, { shortName: short, lockName: leaderLockName(short) });
  const ports = procPortProbe(hostProc, () => findOurCaddy({ docker: local ? docker : null, shortName: short, dataDir, proc: hostProc }));
  const stateFile = join(dataDir, DATAPLANE_DIR, DATAPLANE_STATE_FILE);
  const dnsPort = env.LEVELRAIL_MESH_DNS_PORT;

  const check = (name: string, run: () => Promise<CheckResult>): Check => ({ name, run });
  const checks: Check[] = [
    check("engine", () => engineCheck(engine)),
    check("swarm", async () => {
      const facts = await dockerSwarmProbe(docker, short, join(dataDir, DATAPLANE_DIR), { ipsec: () => probeOverlayIpsec() }).facts().catch(() => null);
      // Only a manager's nodes can hold pinned databases; the database's own trouble is the postgres check's.
      const pinned = facts?.kind === "swarm-manager" ? await db.pinned().catch(() => null) : null;
      return swarmCheck(facts, { holder: edgeName(short), caddy: edgeCaddyName(short) }, pinned);
    }),
    check("live-restore", () => liveRestoreCheck(engine)),
    check("clock", () => clockCheck(engine)),
    check("disk-data", () => dataDiskCheck(dataDir)),
    check("disk-engine", () => engineDiskCheck(engine, local)),
    check("port-http", () => portCheck({ name: "port-http", port: env.LEVELRAIL_INGRESS_HTTP_PORT, variable: "LEVELRAIL_INGRESS_HTTP_PORT" }, ports)),
    ...(env.LEVELRAIL_INGRESS_TLS === "on"
      ? [check("port-https", () => portCheck({ name: "port-https", port: env.LEVELRAIL_INGRESS_HTTPS_PORT, variable: "LEVELRAIL_INGRESS_HTTPS_PORT" }, ports))]
      : []),
    check("caddy-admin", () => caddyAdminCheck(httpCaddyProbe(env.LEVELRAIL_CADDY_ADMIN))),
    check("mesh-dns", () =>
      meshDnsCheck({
        port: dnsPort,
        zone: meshZone(short),
        shortName: short,
        stateFile,
        state: () => readState(stateFile),
        replicas: () => meshDnsReplicas(local ? docker : null, short),
        queryA: (port, name) => dnsQueryA(port, name),
        health: (port) => httpGet(`http://127.0.0.1:${port}/healthz`),
      }),
    ),
    check("postgres", () => postgresCheck(db)),
    check("migrations", () => migrationsCheck(db)),
    check("worker", () => workerCheck(db, leaderLockName(short))),
    check("backups", () => backupsCheck(db)),
  ];
  try {
    return await runChecks(checks);
  } finally {
    void db.close();
  }
}

/** The command: prints the results and answers the exit code (1 when any check fails). */
export async function doctor(args: string[], vars: NodeJS.ProcessEnv, out: (text: string) => void): Promise<number> {
  const json = args.includes("--json");
  const unknown = args.find((a) => a !== "--json");
  if (unknown) throw new Error(`unknown option ${unknown}: usage \`levelrail doctor [--json]\``);
  const results = await diagnose(vars);
  out(json ? formatJson(results) : formatLines(results).join("\n"));
  return allOk(results) ? 0 : 1;
}
