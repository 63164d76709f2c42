// `levelrail uninstall`: removes the installation's containers (the panel's and the data plane's)
// and keeps its data: the PostgreSQL volume and the data dir. App containers are left running.
import Docker from "dockerode";
import { stopCaddy } from "../lib/caddy.mjs";
import { stopMeshDns } from "../lib/dataplane.mjs";
import type { InstallConfig } from "./config";
import { LABELS, stopAndRemove } from "../lib/containers.mjs";
import { INSTALL_ROLES, listInstalled } from "./containers";
import { panelVolume } from "./specs";
import { removeInstallState } from "./state";

export async function uninstall(cfg: InstallConfig, log: (line: string) => void): Promise<string[]> {
  const docker = new Docker({ socketPath: cfg.dockerSocket });
  const removed: string[] = [];
  // in INSTALL_ROLES order: the panel first (web, worker, then its database), the data plane last
  const found = await listInstalled(docker, cfg.shortName, INSTALL_ROLES);
  for (const role of INSTALL_ROLES) {
    for (const c of found.filter((x) => x.Labels[LABELS.role] === role)) {
      await stopAndRemove(c, 30, docker);
      removed.push(c.Names[0]?.replace(/^\//, "") ?? c.Id);
    }
  }
  // a data plane an earlier version of `npm start` ran as processes
  const stopped: string[] = [...(await stopMeshDns(cfg.dataDir, cfg.shortName)), ...(await stopCaddy(cfg.dataDir, cfg.shortName))];
  removeInstallState(cfg.dataDir);
  log(removed.length || stopped.length ? `removed ${[...removed, ...stopped].join(", ")}` : "no container of this installation was there");
  log(`kept the data: the volume ${panelVolume(cfg.shortName)} (the panel's database) and ${cfg.dataDir}; \`npx levelrail install\` takes them up again`);
  return removed;
}
