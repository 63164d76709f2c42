import type { Db, Sql } from "@levelrail/db/client";
import { listenDesired } from "@levelrail/db/notify";
import type { Runtime } from "@levelrail/docker";
import { Labels, instanceFilter, meshZone } from "@levelrail/spec/naming";
import { type MeshPort, applicationController, serviceKey } from "./controllers/application/reconcile";
import { MeshDns } from "./mesh/dns";
import { APP_SUBNET_BITS, DEFAULT_NETWORK_POOL, type SubnetPool } from "./network/pool";
import { httpProber } from "./controllers/application/ports";
import { Runner, type RunnerEvent } from "./reconcile/runner";
import { pgServiceStore } from "./store";
import { pgHookRecorder } from "./hook-store";
import { pgEnvStores } from "@levelrail/services/env/sources";
import type { Keyring } from "@levelrail/secrets";

export interface WorkerOptions {
  db: Db;
  sql: Sql;
  runtime: Runtime;
  shortName: string;
  keyring: Keyring;
  resyncMs: number;
  probeIntervalMs?: number;
  /** Timeout of a hook whose service sets none (seconds). */
  defaultHookTimeoutSeconds?: number;
  /** Subnets for app networks. */
  networkPool?: SubnetPool;
  /** Where Caddy asks the mesh DNS (loopback); containers ask it on their network's gateway, port 53. */
  meshDnsPort: number;
  /** How long an old container keeps serving after the switch. */
  drainMs?: number;
  log: (line: string) => void;
  onEvent?: (e: RunnerEvent) => void;
}

/** Wires store, runtime and controllers to their runners; LISTEN + periodic resync feed them. */
export async function startWorker(o: WorkerOptions) {
  const store = pgServiceStore(o.db);
  const mesh = new MeshDns({ zone: meshZone(o.shortName), log: o.log });
  await mesh.listen("127.0.0.1", o.meshDnsPort);
  const gatewayFailures = new Set<string>();
  const meshPort: MeshPort = {
    setActive: (name, address) => mesh.setActive(name, address),
    async serveApp(gateway, app) {
      try {
        await mesh.listen(gateway, 53, `${app}.${meshZone(o.shortName)}`);
      } catch (err) {
        // Containers still run; only mesh names fail to resolve inside them. Say so once per gateway.
        if (!gatewayFailures.has(gateway)) o.log(`[mesh-dns] cannot listen on ${gateway}:53 (${describe(err)}); mesh names will not resolve inside app containers`);
        gatewayFailures.add(gateway);
      }
    },
  };
  const stores = pgEnvStores(o.db, o.keyring);
  const application = new Runner(
    applicationController({
      shortName: o.shortName,
      runtime: o.runtime,
      store,
      status: store,
      prober: httpProber,
      probeIntervalMs: o.probeIntervalMs ?? 100,
      envStores: stores,
      registry: stores,
      hooks: pgHookRecorder(o.db),
      defaultHookTimeoutSeconds: o.defaultHookTimeoutSeconds ?? 300,
      networkPool: o.networkPool ?? { pool: DEFAULT_NETWORK_POOL, bits: APP_SUBNET_BITS },
      mesh: meshPort,
      drainMs: o.drainMs ?? 2000,
    }),
    {
      log: (e) => {
        o.onEvent?.(e);
        if (e.type === "error") o.log(`[application] ${e.key}: ${describe(e.error)}; retry in ${e.retryInMs} ms`);
        if (e.type === "terminal") o.log(`[application] ${e.key}: ${e.error.message}`);
      },
    },
  );

  const route = (key: string) => {
    if (key.startsWith("service:")) application.enqueue(key);
  };

  const resync = async () => {
    const names = new Set(await store.listServiceNames());
    // Containers of services that no longer exist are reconciled too, so they get removed.
    for (const c of await o.runtime.listContainers(instanceFilter(o.shortName))) {
      const svc = c.labels[Labels.service];
      if (svc) names.add(svc);
    }
    for (const name of names) application.enqueue(serviceKey(name));
  };

  const unlisten = await listenDesired(o.sql, route);
  await resync();
  const timer = setInterval(() => {
    resync().catch((err: unknown) => o.log(`[resync] ${describe(err)}`));
  }, o.resyncMs);
  timer.unref();

  return {
    application,
    mesh,
    resync,
    async stop() {
      clearInterval(timer);
      await unlisten();
      await application.stop();
      mesh.close();
    },
  };
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
