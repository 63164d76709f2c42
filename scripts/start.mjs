#!/usr/bin/env node
// `npm start`: installs what is missing; starts (or adopts) the data plane (Caddy and the mesh DNS,
// which outlive the panel); starts PostgreSQL (embedded unless DATABASE_URL), copies it first when
// migrations are pending, migrates, builds the web app once, and serves the web UI and the worker
// (each restarted if it crashes) until Ctrl-C, which stops the panel only.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { copyCluster, dumpExternal, migrationsPending, recordMigrated } from "./lib/backup.mjs";
import { buildWeb, migrate, webBuildCurrent } from "./lib/build.mjs";
import { expectedPanelUrl, startDatabase } from "./lib/database.mjs";
import { handleSignals, onShutdown, runMain } from "./lib/lifecycle.mjs";
import { ensureNpm } from "./lib/npm.mjs";
import { ensureMasterKeyFile, resolveDataDir } from "./lib/paths.mjs";
import { ensureDocker } from "./lib/system.mjs";
import { Fatal, livePanelPid, pidRecord } from "./lib/util.mjs";
import { startWeb, startWorker, untilStopped } from "./serve.mjs";

/** The embedded PostgreSQL of `npm start` (`npm test` uses another, so both can run at once). */
const PG_PORT = Number(process.env.LEVELRAIL_PG_PORT ?? 54329);

handleSignals({ exitCode: 0 });
await runMain(async () => {
  const started = Date.now();
  const port = process.env.PORT ?? "3000";
  if (!/^\d{1,5}$/.test(port)) throw new Fatal(`PORT=${port} is not a port number`);
  const meshPort = process.env.LEVELRAIL_MESH_DNS_PORT ?? "10053";
  if (!/^\d{1,5}$/.test(meshPort)) throw new Fatal(`LEVELRAIL_MESH_DNS_PORT=${meshPort} is not a port number`);
  const dataDir = resolveDataDir(process.env.LEVELRAIL_DATA_DIR, ".levelrail");
  const pidFile = join(dataDir, "panel.pid");
  const other = livePanelPid(pidFile);
  if (other) throw new Fatal(`a panel already runs from ${dataDir} (pid ${other}); stop it with \`npx levelrail stop\` first`);
  writeFileSync(pidFile, pidRecord());
  onShutdown("panel pid file", async () => rmSync(pidFile, { force: true }));

  await ensureNpm();
  // Imported once the npm packages are installed: these load dockerode and tar-stream.
  const [{ DEFAULT_CADDY_ADMIN }, { ensureIngress }] = await Promise.all([import("./lib/caddy.mjs"), import("./lib/ingress.mjs")]);
  const caddyAdmin = process.env.LEVELRAIL_CADDY_ADMIN ?? DEFAULT_CADDY_ADMIN;

  ensureMasterKeyFile(dataDir); // before the web app and the worker, which both read it
  const panelEnv = { LEVELRAIL_DATA_DIR: dataDir, LEVELRAIL_CADDY_ADMIN: caddyAdmin, LEVELRAIL_MESH_DNS_PORT: meshPort, PORT: port };
  const pending = migrationsPending(dataDir);
  // Nothing to migrate and nothing to build (a warm start): the web app, the slowest to boot,
  // starts now and boots while the rest is checked and PostgreSQL starts (it answers 503 until
  // the database is up).
  const earlyUrl = pending ? null : expectedPanelUrl(dataDir, PG_PORT);
  const early = earlyUrl && webBuildCurrent() ? await startWeb({ ...panelEnv, DATABASE_URL: earlyUrl }) : null;

  await ensureDocker({ dataDir });
  // The data plane first: it serves the apps whatever happens to the panel from here on.
  const short = process.env.LEVELRAIL_SHORT_NAME ?? "levelrail";
  // On a swarm manager, the edge namespace joined to the apps' overlays (docs/operating/nodes-and-swarm.md).
  await ensureIngress({ dataDir, short, caddyAdmin, meshPort });

  const db = await startDatabase({ dataDir, port: PG_PORT, beforeStart: pending ? (pgDir, { created }) => created || copyCluster(dataDir, pgDir) : null });
  if (pending && !db.embedded) dumpExternal(dataDir, db.url);

  // Migrated as the owner of the tables; the web app and the worker then run as the panel's role
  // (embedded database), which reads and appends the audit log and cannot drop its trigger.
  const panelUrl = await migrate({ ...panelEnv, DATABASE_URL: db.url }, db.panel);
  recordMigrated(dataDir);
  if (early && panelUrl !== earlyUrl) throw new Fatal("the database URL changed while starting; run `npm start` again");
  const env = { ...panelEnv, DATABASE_URL: panelUrl };
  let web = early;
  if (!web) {
    await buildWeb(env, { fast: true });
    web = await startWeb(env);
  }
  await startWorker(env, web.ready);
  const { url } = await web.ready;

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
      "  Ctrl-C (or `npx levelrail stop`) stops the panel; the apps, Caddy and the mesh DNS keep serving.",
      "  `npx levelrail stop --all` stops Caddy and the mesh DNS too (app containers keep running).",
      "",
    ].join("\n"),
  );
  await untilStopped();
});
