// `<data dir>/install.json`: what the last completed `levelrail install` set up, for the CLI (which
// database to use) and `uninstall`. Written last, so its presence means the install finished once.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface InstallState {
  shortName: string;
  pgPort: number;
  webPort: number;
  release: string;
  installedAt: string;
}

export const stateFile = (dataDir: string) => join(dataDir, "install.json");

export function readInstallState(dataDir: string): InstallState | null {
  if (!existsSync(stateFile(dataDir))) return null;
  return JSON.parse(readFileSync(stateFile(dataDir), "utf8")) as InstallState;
}

export function writeInstallState(dataDir: string, state: InstallState) {
  writeFileSync(stateFile(dataDir), JSON.stringify(state, null, 2) + "\n");
}

export const removeInstallState = (dataDir: string) => rmSync(stateFile(dataDir), { force: true });
