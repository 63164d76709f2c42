#!/usr/bin/env node
// `npm start`: installs what is missing, starts PostgreSQL (embedded unless DATABASE_URL) and
// Caddy, migrates, builds the web app once, and serves the web UI and the worker until Ctrl-C.
import { buildWeb, migrate } from "./lib/build.mjs";
import { startDatabase } from "./lib/database.mjs";
import { handleSignals, runMain } from "./lib/lifecycle.mjs";
import { ensureNpm } from "./lib/npm.mjs";
import { ensureMasterKeyFile, resolveDataDir } from "./lib/paths.mjs";
import { DEFAULT_CADDY_ADMIN, ensureCaddy, ensureDocker } from "./lib/system.mjs";
import { Fatal } from "./lib/util.mjs";
import { serveStack, stopWhenAChildExits } from "./serve.mjs";

/** The embedded PostgreSQL of `npm start` (`npm test` uses another, so both can run at once). */
const PG_PORT = 54329;

handleSignals({ exitCode: 0 });
await runMain(async () => {
  const started = Date.now();
  const port = process.env.PORT ?? "3000";
  if (!/^\d{1,5}$/.test(port)) throw new Fatal(`PORT=${port} is not a port number`);
  const dataDir = resolveDataDir(process.env.LEVELRAIL_DATA_DIR, ".levelrail");
  const caddyAdmin = process.env.LEVELRAIL_CADDY_ADMIN ?? DEFAULT_CADDY_ADMIN;

  await ensureNpm();
  await ensureDocker({ dataDir });
  await ensureCaddy({ dataDir, admin: caddyAdmin });
  const db = await startDatabase({ dataDir, port: PG_PORT });
  ensureMasterKeyFile(dataDir);

  const env = { DATABASE_URL: db.url, LEVELRAIL_DATA_DIR: dataDir, LEVELRAIL_CADDY_ADMIN: caddyAdmin, PORT: port };
  await migrate(env);
  await buildWeb(env);
  const { url, exited } = await serveStack(env);

  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    [
      "",
      `  Levelrail is running at ${url}  (ready in ${seconds} s; data in ${dataDir})`,
      "",
      "  Create the first operator (in another terminal, from this folder):",
      "    npx levelrail admin create --email you@example.com --password-stdin",
      "  then an API token:",
      "    npx levelrail token create --email you@example.com --name cli",
      "",
      "  Stop with Ctrl-C.",
      "",
    ].join("\n"),
  );
  await stopWhenAChildExits(exited);
});
