// The data plane's own process, one of two mesh DNS replicas (replica 0 on LEVELRAIL_MESH_DNS_PORT,
// replica 1 on the next port; Caddy asks either at random, and each kills its sibling when it
// freezes). `npm start` runs each in a container under the engine's restart policy
// (LEVELRAIL_DATAPLANE_SUPERVISOR=engine; scripts/lib/dataplane.mjs), adopts it at the next start
// and replaces an older version itself: it starts the new container, which binds beside the old
// one, then stops the old container (a signal from here would only have the engine restart it).
// Run as a plain process (the default, `launcher`), a newer one tells the older one to go.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { envSchema, parseEnv } from "@levelrail/config/env";
import { dockerRuntime } from "@levelrail/docker";
import { DATAPLANE_DIR, DATAPLANE_STATE_FILE } from "@levelrail/spec/dataplane";
import { meshZone } from "@levelrail/spec/naming";
import { DataPlane } from "./server";
import { isDataPlanePid, readPidFile, siblingPort, siblingWatchdog } from "./sibling";

const schema = envSchema
  .pick({ LEVELRAIL_DATA_DIR: true, LEVELRAIL_SHORT_NAME: true, LEVELRAIL_MESH_DNS_PORT: true, LEVELRAIL_MESH_DNS_REPLICA: true, DOCKER_HOST: true })
  .extend({ LEVELRAIL_DATAPLANE_VERSION: z.string().default("dev"), LEVELRAIL_DATAPLANE_SUPERVISOR: z.enum(["launcher", "engine"]).default("launcher") });
const env = (() => {
  try {
    return parseEnv(schema, process.env, "the data plane");
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
})();

const replica = env.LEVELRAIL_MESH_DNS_REPLICA;
const port = env.LEVELRAIL_MESH_DNS_PORT + replica;
const log = (line: string) => console.log(`${new Date().toISOString()} [replica ${replica}] ${line}`);
const dir = join(env.LEVELRAIL_DATA_DIR, DATAPLANE_DIR);
mkdirSync(dir, { recursive: true });
const pidFile = join(dir, `dns-${replica}.pid`);
/** Where a data plane from before the replicas (one process on the base port) kept its pid. */
const legacyPidFile = join(dir, "dns.pid");

const plane = new DataPlane({
  stateFile: join(dir, DATAPLANE_STATE_FILE),
  shortName: env.LEVELRAIL_SHORT_NAME,
  runtime: dockerRuntime({ dockerHost: env.DOCKER_HOST }),
  port,
  version: env.LEVELRAIL_DATAPLANE_VERSION,
  replica,
  log,
});
await plane.start();
// Whoever replaces an older replica waits for this line before it removes the old one.
log(`answering DNS over UDP on 127.0.0.1:${port} (state generation ${plane.state.generation}; swarm tasks probed)`);

// The UDP sockets are bound (beside any older data plane's of this replica, which no longer gets
// queries): tell it to go.
const previous = env.LEVELRAIL_DATAPLANE_SUPERVISOR === "engine" ? [] : [readPidFile(pidFile) ?? 0, ...(replica === 0 ? [readPidFile(legacyPidFile) ?? 0] : [])];
writeFileSync(pidFile, `${process.pid}\n`); // before the signal, so the old one never removes ours
if (replica === 0 && env.LEVELRAIL_DATAPLANE_SUPERVISOR !== "engine") rmSync(legacyPidFile, { force: true });
for (const pid of new Set(previous)) {
  if (pid <= 0 || pid === process.pid || !isDataPlanePid(pid)) continue;
  try {
    process.kill(pid, "SIGTERM");
    log(`took over from the data plane pid ${pid}`);
  } catch {
    // gone already
  }
}
// Node cannot bind TCP beside the old one: this waits until it has let go (lookups go to the sibling meanwhile).
await plane.serveTcp();
const watchdog = siblingWatchdog({ port: siblingPort(env.LEVELRAIL_MESH_DNS_PORT, replica), zone: meshZone(env.LEVELRAIL_SHORT_NAME), pidFile: join(dir, `dns-${1 - replica}.pid`), log });
watchdog.start();
log(`data plane ${env.LEVELRAIL_DATAPLANE_VERSION} ready (pid ${process.pid}; DNS over UDP and TCP, and HTTP, on 127.0.0.1:${port}; ${plane.listening.length} DNS listeners; state generation ${plane.state.generation}; watching the sibling on ${siblingPort(env.LEVELRAIL_MESH_DNS_PORT, replica)})`);

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping`);
  watchdog.stop();
  await plane.stop();
  try {
    if (Number(readFileSync(pidFile, "utf8").trim()) === process.pid) rmSync(pidFile, { force: true });
  } catch {
    // not ours any more
  }
  process.exit(0);
};
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGHUP", () => {}); // a closed terminal is no reason to stop serving
