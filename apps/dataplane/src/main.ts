// The data plane's own process: started detached by `npm start` (its own session, so neither a
// Ctrl-C nor a crash of the panel reaches it), adopted by the next `npm start`, replaced without a
// gap by a newer version (it binds beside the old one, then tells it to go).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { envSchema, parseEnv } from "@levelrail/config/env";
import { dockerRuntime } from "@levelrail/docker";
import { DATAPLANE_DIR, DATAPLANE_STATE_FILE } from "@levelrail/spec/dataplane";
import { DataPlane } from "./server";

const schema = envSchema
  .pick({ LEVELRAIL_DATA_DIR: true, LEVELRAIL_SHORT_NAME: true, LEVELRAIL_MESH_DNS_PORT: true, DOCKER_HOST: true })
  .extend({ LEVELRAIL_DATAPLANE_VERSION: z.string().default("dev") });
const env = (() => {
  try {
    return parseEnv(schema, process.env, "the data plane");
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
})();

const log = (line: string) => console.log(`${new Date().toISOString()} ${line}`);
const dir = join(env.LEVELRAIL_DATA_DIR, DATAPLANE_DIR);
mkdirSync(dir, { recursive: true });
const pidFile = join(dir, "dns.pid");

const plane = new DataPlane({
  stateFile: join(dir, DATAPLANE_STATE_FILE),
  shortName: env.LEVELRAIL_SHORT_NAME,
  runtime: dockerRuntime({ dockerHost: env.DOCKER_HOST }),
  port: env.LEVELRAIL_MESH_DNS_PORT,
  version: env.LEVELRAIL_DATAPLANE_VERSION,
  log,
});
await plane.start();

// The UDP sockets are bound (beside any older data plane's, which no longer gets queries): tell it to go.
const previous = (() => {
  try {
    return Number(readFileSync(pidFile, "utf8").trim());
  } catch {
    return 0;
  }
})();
writeFileSync(pidFile, `${process.pid}\n`); // before the signal, so the old one never removes ours
const isDataPlane = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("dataplane");
  } catch {
    return false;
  }
};
if (previous > 0 && previous !== process.pid && isDataPlane(previous)) {
  try {
    process.kill(previous, "SIGTERM");
    log(`took over from the data plane pid ${previous}`);
  } catch {
    // gone already
  }
}
await plane.serveHttp();
log(`data plane ${env.LEVELRAIL_DATAPLANE_VERSION} ready (pid ${process.pid}; DNS and HTTP on 127.0.0.1:${env.LEVELRAIL_MESH_DNS_PORT}; ${plane.listening.length} DNS listeners; state generation ${plane.state.generation})`);

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping`);
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
