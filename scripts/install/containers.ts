// The installation's containers: each one named and labelled by its role, carrying a hash of the
// options it was created with, so a step can tell "already as wanted" (kept or started) from
// "different" (replaced), and a re-run of `install` after a crash finishes what was half done.
import { createHash } from "node:crypto";
import type Docker from "dockerode";
import { LABELS, owned, ownLabels, stopAndRemove } from "../lib/containers.mjs";

export type PanelRole = "panel-postgres" | "panel-web" | "panel-worker";
/** Every role an installation's containers have (the data plane's are the launcher's; see dataplane.mjs). */
export const INSTALL_ROLES = ["panel-web", "panel-worker", "panel-postgres", "mesh-dns", "ingress"] as const;

export const SPEC_LABEL = "levelrail.install.spec";

export interface ContainerSpec {
  name: string;
  role: PanelRole;
  create: Docker.ContainerCreateOptions;
}

/** The labels of the data plane's containers (scripts/lib/containers.mjs), for the panel's roles. */
export const roleLabels = (shortName: string, role: string): Record<string, string> => ownLabels(shortName, role);

/** A short hash of the create options (stable key order), stored on the container. */
export function specHash(create: Docker.ContainerCreateOptions): string {
  const stable = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(stable) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, stable(x)])) : v;
  return createHash("sha256").update(JSON.stringify(stable(create))).digest("hex").slice(0, 16);
}

const isNotFound = (err: unknown) => (err as { statusCode?: number }).statusCode === 404;

export async function inspectOrNull(docker: Docker, name: string): Promise<Docker.ContainerInspectInfo | null> {
  try {
    return await docker.getContainer(name).inspect();
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

/** Refuses to touch a container that has our name but not our labels (someone else's). */
function checkOwned(info: Docker.ContainerInspectInfo, shortName: string, role: string) {
  if (!owned(info.Config.Labels, shortName, role)) {
    throw new Error(`a container named ${info.Name.replace(/^\//, "")} exists without the labels of this installation's ${role}; remove or rename it, then run again`);
  }
}

export type EnsureOutcome = "kept" | "started" | "created" | "replaced";

/**
 * The container exists as `spec` says and runs: kept when it does already, started when it was
 * stopped, created when missing, and replaced (the old one stopped and removed first) when its
 * options changed.
 */
export async function ensureContainer(docker: Docker, shortName: string, spec: ContainerSpec): Promise<EnsureOutcome> {
  const hash = specHash(spec.create);
  const have = await inspectOrNull(docker, spec.name);
  let outcome: EnsureOutcome = "created";
  if (have) {
    checkOwned(have, shortName, spec.role);
    if (have.Config.Labels?.[SPEC_LABEL] === hash) {
      if (have.State.Running) return "kept";
      await docker.getContainer(have.Id).start();
      return "started";
    }
    await stopAndRemove(have, 20, docker);
    outcome = "replaced";
  }
  const labels = { ...spec.create.Labels, ...roleLabels(shortName, spec.role), [SPEC_LABEL]: hash };
  const created = await docker.createContainer({ ...spec.create, name: spec.name, Labels: labels });
  await created.start();
  return outcome;
}

/** The installation's containers of the given roles (running or not). */
export async function listInstalled(docker: Docker, shortName: string, roles: readonly string[]): Promise<Docker.ContainerInfo[]> {
  const all = await docker.listContainers({ all: true, filters: { label: [`${LABELS.managed}=true`, `${LABELS.instance}=${shortName}`] } });
  return all.filter((c) => roles.includes(c.Labels[LABELS.role] ?? ""));
}

/** Stops a container by name (if it is ours and runs); returns whether it was running. */
export async function stopIfRunning(docker: Docker, shortName: string, name: string, role: PanelRole): Promise<boolean> {
  const have = await inspectOrNull(docker, name);
  if (!have?.State.Running) return false;
  checkOwned(have, shortName, role);
  await docker.getContainer(have.Id).stop({ t: 30 });
  return true;
}
