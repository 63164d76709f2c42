// The Docker engine's own config file (/etc/docker/daemon.json). When Levelrail installs docker.io
// itself, it turns on `live-restore` there before the engine first starts: containers then keep
// running (and serving) while dockerd restarts or upgrades. An engine someone else set up is left
// as it is (`levelrail doctor` says how to turn it on).
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export const DAEMON_JSON = "/etc/docker/daemon.json";

/**
 * Adds `"live-restore": true` to the daemon.json at `file` (created, with its folder, when
 * missing), keeping every other key. A file that already sets live-restore (either way), or that
 * is not a JSON object, is left untouched. Returns what happened: `created`, `added`, `already`
 * (on), `kept-off` (someone set it false) or `invalid`.
 */
export function enableLiveRestore(file = DAEMON_JSON) {
  let config = {};
  const exists = existsSync(file);
  if (exists) {
    const text = readFileSync(file, "utf8");
    if (text.trim() !== "") {
      try {
        config = JSON.parse(text);
      } catch {
        return "invalid";
      }
      if (config === null || typeof config !== "object" || Array.isArray(config)) return "invalid";
    }
  }
  if (config["live-restore"] === true) return "already";
  if ("live-restore" in config) return "kept-off";
  const mode = exists ? statSync(file).mode & 0o777 : 0o644;
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.levelrail-${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ ...config, "live-restore": true }, null, 2) + "\n", { mode });
  renameSync(tmp, file);
  return exists ? "added" : "created";
}
