#!/usr/bin/env node
// `npx levelrail …`: runs scripts/cli.ts (compiled to scripts/dist/cli.mjs when its code changed)
// against the right database: DATABASE_URL, else the embedded one of a running `npm start`, else
// the embedded one started just for this command.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { handleSignals, runMain, shutdown } from "./lib/lifecycle.mjs";
import { repoRoot, resolveDataDir } from "./lib/paths.mjs";
import { Fatal, capture, isRoot, livePanelPid, log } from "./lib/util.mjs";

const PG_PORT = 54329; // the embedded database of `npm start`

handleSignals({ exitCode: 130 });
await runMain(async () => {
  if (!existsSync(join(repoRoot, "node_modules", "esbuild"))) throw new Fatal(`dependencies are not installed: run \`npm start\` (or \`npm install\`) in ${repoRoot} first`);
  const args = process.argv.slice(2);
  const dataDir = resolveDataDir(process.env.LEVELRAIL_DATA_DIR, ".levelrail");
  if (args[0] === "stop") return void (await shutdown(await stop(dataDir, args.slice(1))));
  const env = { ...process.env, LEVELRAIL_DATA_DIR: dataDir };
  if ((args[0] === "install" || args[0] === "uninstall") && !isRoot()) {
    // before anything is compiled or started (scripts/install/command.ts says the same)
    throw new Fatal(`${args[0]} must run as root (it runs the engine's containers and may install docker.io): sudo npx levelrail ${args[0]}`);
  }
  const { BUNDLES, bundle, nodeArgs } = await import("./lib/bundle.mjs");
  const cli = nodeArgs((await bundle(BUNDLES.cli)).outfile);
  // Every command but help, install and uninstall works on the database: an installation's
  // (`levelrail install`), else the embedded one of `npm start`; doctor only looks for the one that runs.
  const needsDb = args.length > 0 && !["help", "--help", "-h", "doctor", "install", "uninstall", "node", "login", "export", "diff", "apply"].includes(args[0]);
  const installed = (needsDb || args[0] === "doctor") && !env.DATABASE_URL ? installedDatabase(dataDir) : null;
  if (installed) Object.assign(env, installed);
  if (args[0] === "doctor" && !env.DATABASE_URL) {
    const { liveDatabaseUrl } = await import("./lib/database.mjs");
    const url = liveDatabaseUrl(dataDir);
    if (url) env.DATABASE_URL = url;
  }

  if (needsDb && !env.DATABASE_URL) {
    const { liveDatabaseUrl, startDatabase } = await import("./lib/database.mjs");
    env.DATABASE_URL = liveDatabaseUrl(dataDir) ?? "";
    if (!env.DATABASE_URL) {
      console.error("levelrail: `npm start` is not running; starting its embedded database for this command");
      env.DATABASE_URL = (await startDatabase({ dataDir, port: PG_PORT })).url;
      if (args[0] !== "migrate") {
        const r = capture(process.execPath, [...cli, "migrate"], { cwd: repoRoot, env });
        if (!r.ok) throw new Fatal(`migrations failed: ${r.stderr.trim() || r.stdout.trim()}`);
      }
    }
  }

  const child = spawn(process.execPath, [...cli, ...args], { cwd: repoRoot, env, stdio: "inherit" });
  const code = await new Promise((resolve) => {
    child.on("error", () => resolve(1));
    child.on("exit", (c, signal) => resolve(c ?? (signal ? 128 : 1)));
  });
  await shutdown(code);
});

/** DATABASE_URL (without its password) and DATABASE_PASSWORD_FILE of an installation on this data dir, or null. */
function installedDatabase(dataDir) {
  const file = join(dataDir, "install.json");
  if (!existsSync(file)) return null;
  const { pgPort } = JSON.parse(readFileSync(file, "utf8"));
  return { DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/levelrail`, DATABASE_PASSWORD_FILE: join(dataDir, "pg-password") };
}

/**
 * `levelrail stop [--all]`: stops the panel of this data dir (as a Ctrl-C would); with `--all`
 * also the data-plane processes (Caddy, the mesh DNS). App containers keep running.
 */
async function stop(dataDir, rest) {
  const unknown = rest.filter((a) => a !== "--all");
  if (unknown.length) throw new Fatal(`unknown option ${unknown[0]}: usage \`levelrail stop [--all]\``);
  const { stopMeshDns } = await import("./lib/dataplane.mjs");
  const { stopPid } = await import("./lib/util.mjs");
  const { stopCaddy } = await import("./lib/caddy.mjs");
  const panel = livePanelPid(join(dataDir, "panel.pid"));
  if (panel) {
    await stopPid(panel, "the panel", 60_000);
    log(`stopped the panel (pid ${panel})`);
  } else log(`no panel runs from ${dataDir}`);
  if (rest.includes("--all")) {
    const short = process.env.LEVELRAIL_SHORT_NAME ?? "levelrail";
    const { stopSwarmEdge } = await import("./lib/edge.mjs");
    const stopped = [...(await stopMeshDns(dataDir, short)), ...(await stopCaddy(dataDir, short)), ...(await stopSwarmEdge(short))];
    log(stopped.length ? `stopped ${stopped.join(" and ")}; app containers keep running` : "no data-plane process of this data dir runs");
  }
  return 0;
}
