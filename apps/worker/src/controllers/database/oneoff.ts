import type { DatabaseRole } from "@levelrail/spec/naming";
import type { ProberManager } from "../application/prober";
import type { ContainerPort, DatabaseCredentials, VolumePort } from "./ports";
import type { DatabaseProbeTarget } from "./readiness";
import { type ServerDeps, databaseContainerOptions, ensureVolume } from "./server";
import type { DesiredDatabase } from "./store";

/** How long a fresh server may take to initialise its volume and accept connections. */
export const READY_TIMEOUT_MS = 180_000;

/** What running a one-off server needs: the engine's containers and volumes, and the prober manager that says when it is ready. */
export interface OneOffDeps extends ServerDeps {
  runtime: ContainerPort & VolumePort;
  readiness: Pick<ProberManager<DatabaseProbeTarget>, "until" | "forget">;
  now: () => Date;
}

/**
 * A one-off server of the database's image on `volume` (a restore filling a fresh volume, a
 * verification's throwaway), started and ready; a leftover of the same name is replaced first.
 * Readiness is the prober manager's (nothing here polls); it rejects naming why when the server
 * exits first (with the end of its log) or stays unready past `READY_TIMEOUT_MS`.
 */
export async function startOneOff(
  x: OneOffDeps,
  d: Pick<DesiredDatabase, "id" | "environmentId" | "engine" | "image">,
  o: { name: string; role: DatabaseRole; volume: string; credentials: DatabaseCredentials },
): Promise<string> {
  await x.runtime.removeContainer(o.name);
  await ensureVolume(x, d, o.volume);
  const id = await x.runtime.createContainer(databaseContainerOptions(x, d, o));
  if (id === null) throw new Error(`container name ${o.name} is taken; remove that container`);
  await x.runtime.startContainer(id);
  const target: DatabaseProbeTarget = { key: null, containerId: id, since: x.now().getTime(), budgetMs: READY_TIMEOUT_MS, engine: d.engine, credentials: o.credentials };
  const result = await x.readiness.until(target);
  x.readiness.forget(id);
  if (result.ready) return id;
  if (result.final) throw new Error(result.detail);
  throw new Error(`the database server did not accept connections within ${Math.round(READY_TIMEOUT_MS / 1000)} s (${result.detail})`);
}

/** Removes a one-off and, unless kept, its volume; never throws (what is left is removed next time). */
export async function removeOneOff(x: { runtime: Pick<ContainerPort, "removeContainer"> & Pick<VolumePort, "removeVolume"> }, name: string, volume: string | null): Promise<void> {
  await x.runtime.removeContainer(name).catch(() => {});
  if (volume) await x.runtime.removeVolume(volume).catch(() => {});
}
