// `levelrail install` and `levelrail uninstall` as CLI commands (scripts/cli.ts routes them here).
import { resolveDataDir } from "../lib/paths.mjs";
import { installConfig } from "./config";
import { install } from "./install";
import { uninstall } from "./uninstall";

const log = (line: string) => console.error(`levelrail: ${line}`);

function setUp(what: string, args: string[]) {
  if (args.length) throw new Error(`${what} takes no arguments (its settings are environment variables: see the README)`);
  if (process.getuid?.() !== 0) throw new Error(`${what} must run as root (it runs the engine's containers and may install docker.io): sudo npx levelrail ${what}`);
  const dataDir: string = resolveDataDir(process.env.LEVELRAIL_DATA_DIR, ".levelrail");
  return installConfig(process.env, dataDir);
}

export async function installCommand(args: string[]) {
  const cfg = setUp("install", args);
  const r = await install(cfg, { build: true, log });
  console.log(
    [
      "",
      `  Levelrail is installed and running at ${r.url}  (release ${r.release}; ${r.seconds.toFixed(1)} s; data in ${cfg.dataDir})`,
      `  Its containers (${cfg.shortName}-panel-web, -worker, -postgres, Caddy and the mesh DNS) come back by themselves after a crash or a reboot.`,
      "",
      "  Create the first operator (from this folder):",
      "    npx levelrail admin create --email you@example.com --password-stdin",
      "  then an API token:",
      "    npx levelrail token create --email you@example.com --name cli",
      "",
      "  Upgrade: check out a newer commit and run `sudo npx levelrail install` again.",
      "  `sudo npx levelrail uninstall` removes the containers and keeps the data.",
      "",
    ].join("\n"),
  );
}

export async function uninstallCommand(args: string[]) {
  const cfg = setUp("uninstall", args);
  await uninstall(cfg, log);
}
