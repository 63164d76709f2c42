import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as dnsPacket from "dns-packet";
import { DataPlane } from "@levelrail/dataplane/server";
import { Replica } from "@levelrail/dataplane/test-replicas";
import { createDb } from "@levelrail/db/client";
import { dockerRuntime } from "@levelrail/docker";
import { instanceFilter, serviceFilter } from "@levelrail/spec/naming";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { ensureTestImage } from "@levelrail/testkit/images";
import { seedOrg, testKit } from "@levelrail/testkit/seed";
import { freePortPair } from "@levelrail/testkit/registry";
import { getService, getStatus } from "@levelrail/services/service/view";
import { waitFor } from "@levelrail/testkit/wait";
import type { Phase } from "@levelrail/spec/service";
import { DATAPLANE_DIR, DATAPLANE_STATE_FILE } from "@levelrail/spec/dataplane";
import { startWorker } from "../src/wiring";

export const IMAGES = {
  v1: { tag: "levelrail-test/web:v1", body: "v1\n", healthy: true },
  v2: { tag: "levelrail-test/web:v2", body: "v2\n", healthy: true },
  never: { tag: "levelrail-test/web:never-ready", body: "never\n", healthy: false },
  crash: { tag: "levelrail-test/web:crash", body: "crash\n", healthy: true, cmd: ["/bin/busybox", "false"] },
} as const;

/**
 * One suite's world: its own database, organization, short name and worker on the real engine.
 * `shortName`: the prefix of its Docker objects (a benchmark run under a given short name); unset: a random `lrt…`.
 */
export async function setupSuite(label: string, opts: { shortName?: string; dataPlane?: "in-process" | "processes" } = {}) {
  const database = await freshDatabase(requireDatabaseUrl(), label);
  const { db, sql } = createDb(database.url);
  const runtime = dockerRuntime({ dockerHost: process.env.DOCKER_HOST });
  for (const img of Object.values(IMAGES)) await ensureTestImage(runtime.docker, img);
  const shortName = opts.shortName ?? `lrt${randomBytes(3).toString("hex")}`;
  const kit = testKit();
  // Its verbs name Docker objects (a database's volumes) with the suite's short name, as the web app
  // does with its own. Its webhook receivers, SMTP and S3 servers are on loopback: an installation
  // that allows private targets (LEVELRAIL_ALLOW_PRIVATE_TARGETS=true, as `npm test` runs the panel).
  const ctx: Awaited<ReturnType<typeof seedOrg>> & { shortName: string } = { ...(await seedOrg(db, label, kit)), shortName, allowPrivateTargets: true };
  const logs: string[] = [];
  let worker: Awaited<ReturnType<typeof startWorker>> | null = null;
  // The suite's own data plane (in this process, as the launcher runs each in its own): two mesh
  // DNS replicas on loopback (ports P and P+1, as Caddy is told) and on its app networks' gateways,
  // following the state file its worker writes.
  // `processes`: each replica is the data plane's own entry point in a process of its own, as in
  // production (a benchmark's worker then never delays a DNS answer); `dataPlane` is not available.
  const dataDir = mkdtempSync(join(tmpdir(), `levelrail-${label}-`));
  const ownProcesses = opts.dataPlane === "processes";
  const stateFile = ownProcesses ? join(dataDir, DATAPLANE_DIR, DATAPLANE_STATE_FILE) : join(dataDir, "state.json");
  const dataPlanePort = await freePortPair();
  const replicas = ownProcesses
    ? []
    : [0, 1].map(
        (replica) => new DataPlane({ stateFile, shortName, runtime, port: dataPlanePort + replica, version: "test", replica, syncMs: 500, log: (l) => logs.push(`[dataplane ${replica}] ${l}`) }),
      );
  for (const r of replicas) {
    await r.start();
    await r.serveTcp();
  }
  const processes = ownProcesses
    ? [0, 1].map((replica) => new Replica(replica, { ...process.env, LEVELRAIL_DATA_DIR: dataDir, LEVELRAIL_SHORT_NAME: shortName, LEVELRAIL_MESH_DNS_PORT: String(dataPlanePort) }))
    : [];
  try {
    for (const p of processes) await p.start();
  } catch (err) {
    for (const p of processes) await p.stop();
    throw err;
  }
  const inProcess = (): DataPlane => {
    if (!replicas[0]) throw new Error("this suite's data plane runs in processes of its own (setupSuite's dataPlane: \"processes\")");
    return replicas[0];
  };
  // Service name → id, remembered so a deleted service's leftovers can still be looked for.
  const ids = new Map<string, string>();

  const suite = {
    /** The suite's own database, for a process of its own (a web server, another worker). */
    databaseUrl: database.url,
    db,
    sql,
    runtime,
    shortName,
    ctx,
    kit,
    logs,
    /** Replica 0, in this process (not with `dataPlane: "processes"`). */
    get dataPlane(): DataPlane {
      return inProcess();
    },
    dataPlanePort,
    /** The file the worker writes and the data plane follows (a test may write it as an earlier version did). */
    stateFile,
    /** What the data plane answers on loopback for an A query of `name` (null: no address). */
    async resolve(name: string): Promise<string | null> {
      const q = dnsPacket.encode({ type: "query", id: 1, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: "A", name }] });
      const reply = await inProcess().answer(q, { kind: "loopback" });
      const a = reply ? dnsPacket.decode(reply).answers?.find((x) => x.type === "A") : undefined;
      return a?.type === "A" ? a.data : null;
    },
    async startWorker(over: Partial<Parameters<typeof startWorker>[0]> = {}) {
      worker = await startWorker({
        db,
        sql,
        runtime,
        shortName,
        keyring: kit.keyring,
        resyncMs: 60_000,
        meshDnsPort: dataPlanePort,
        dataPlaneStateFile: stateFile,
        drainMs: 300,
        // Ownership proofs never ask a real resolver in a test (the discard port refuses at once); a suite that proves domains gives its own DNS server.
        domains: { resolver: "127.0.0.1:9" },
        allowPrivateTargets: true,
        log: (l) => logs.push(l),
        ...over,
      });
      return worker;
    },
    async stopWorker() {
      await worker?.stop();
      worker = null;
    },
    /** The service's id (containers are labelled with it, keys carry it). */
    async serviceId(service: string): Promise<string> {
      const known = ids.get(service);
      if (known) return known;
      const { id } = await getService({ ctx, envId: ctx.envId, name: service });
      ids.set(service, id);
      return id;
    },
    /** Every container of the service (by name; looked up by its id label). */
    containers: async (service: string) => runtime.listContainers(serviceFilter(shortName, await suite.serviceId(service))),
    async waitPhase(service: string, phases: Phase[], timeoutMs = 60_000) {
      await suite.serviceId(service); // remembered, so its containers can be looked for after it is deleted
      return waitFor(
        `${service} to be ${phases.join(" or ")}`,
        async () => {
          const st = await getStatus({ ctx, envId: ctx.envId, name: service });
          return phases.includes(st.phase) && st.lastDeploy?.outcome !== "pending" && st.lastDeploy?.outcome !== "deploying" ? st : undefined;
        },
        { timeoutMs, describe: async () => JSON.stringify(await getStatus({ ctx, envId: ctx.envId, name: service })) },
      );
    },
    /** Waits until `releaseId` has cut over and the service runs again (old containers gone); throws if it failed. */
    async waitRelease(service: string, releaseId: string, { timeoutMs = 120_000, intervalMs = 5 } = {}) {
      return waitFor(
        `release ${releaseId} of ${service} to finish`,
        async () => {
          const st = await getStatus({ ctx, envId: ctx.envId, name: service });
          if (st.lastDeploy?.id !== releaseId) return undefined;
          if (st.lastDeploy.outcome === "failed") throw new Error(`deploy failed: ${st.message}`);
          return st.lastDeploy.outcome === "succeeded" && st.phase === "running" ? st : undefined;
        },
        { timeoutMs, intervalMs },
      );
    },
    /** GET / on the container's address in its app network. */
    async body(containerId: string, network: string): Promise<string> {
      const ip = (await runtime.inspectContainer(containerId))?.addresses[network];
      const res = await fetch(`http://${ip}:8080/`, { signal: AbortSignal.timeout(2000) });
      return res.text();
    },
    async teardown() {
      await suite.stopWorker();
      for (const r of replicas) await r.stop();
      for (const p of processes) await p.stop();
      rmSync(dataDir, { recursive: true, force: true });
      for (const c of await runtime.listContainers(instanceFilter(shortName))) await runtime.removeContainer(c.id);
      for (const n of await runtime.listNetworks(instanceFilter(shortName))) await runtime.removeNetwork(n.name);
      await sql.end({ timeout: 5 });
      await database.drop();
    },
  };
  return suite;
}
