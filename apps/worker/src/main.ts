import { resolve } from "node:path";
import { z } from "zod";
import { Keyring } from "@levelrail/secrets";
import { createDb } from "@levelrail/db/client";
import { dockerRuntime } from "@levelrail/docker";
import { DEFAULT_SHORT_NAME } from "@levelrail/spec/naming";
import { startWorker } from "./wiring";

const env = z
  .object({
    DATABASE_URL: z.string().min(1, "DATABASE_URL is required (npm start sets it)"),
    LEVELRAIL_SHORT_NAME: z.string().regex(/^[a-z][a-z0-9-]{0,19}$/).default(DEFAULT_SHORT_NAME),
    DOCKER_HOST: z.string().optional(),
    LEVELRAIL_RESYNC_SECONDS: z.coerce.number().int().min(1).default(30),
    LEVELRAIL_DATA_DIR: z.string().default(".levelrail"),
    LEVELRAIL_MASTER_KEY: z.string().optional(),
    LEVELRAIL_PREVIOUS_MASTER_KEYS: z.string().optional(),
  })
  .parse(process.env);

const { db, sql } = createDb(env.DATABASE_URL);
const runtime = dockerRuntime({ dockerHost: env.DOCKER_HOST });
await runtime.ping();

const keyring = new Keyring({
  envKey: env.LEVELRAIL_MASTER_KEY,
  envPreviousKeys: env.LEVELRAIL_PREVIOUS_MASTER_KEYS,
  dataDir: resolve(env.LEVELRAIL_DATA_DIR),
});

const worker = await startWorker({
  keyring,
  db,
  sql,
  runtime,
  shortName: env.LEVELRAIL_SHORT_NAME,
  resyncMs: env.LEVELRAIL_RESYNC_SECONDS * 1000,
  log: (line) => console.log(line),
});
console.log(`worker ready (short name ${env.LEVELRAIL_SHORT_NAME})`);

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  await worker.stop();
  await sql.end({ timeout: 5 });
  process.exit(0);
};
process.on("SIGINT", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
