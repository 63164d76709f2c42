import { setTimeout as sleep } from "node:timers/promises";
import type { DatabaseRole } from "@levelrail/spec/naming";
import type { DatabaseCredentials } from "./ports";
import { type ServerDeps, databaseContainerOptions, ensureVolume } from "./server";
import type { DesiredDatabase } from "./store";

/** How long a fresh server may take to initialise its volume and accept connections. */
export const READY_TIMEOUT_MS = 180_000;

/**
 * Waits until the server in `id` accepts connections; rejects naming why when it exits first (with
 * the end of its log) or stays unready past `timeoutMs`.
 */
export async function waitReady(x: ServerDeps, d: Pick<DesiredDatabase, "engine">, id: string, creds: DatabaseCredentials, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  const engine = x.engine(d.engine);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = await x.runtime.inspectContainer(id);
    if (!c) throw new Error("the database server's container disappeared");
    if (c.state === "exited" || c.state === "dead") {
      const tail = (await x.runtime.containerLogs(id, 15).catch(() => "")).trim();
      throw new Error(`the database server exited (code ${c.exitCode ?? "?"})${tail ? `: ${tail.split("\n").slice(-5).join(" | ")}` : ""}`);
    }
    if (c.state === "running" && (await engine.ready(id, creds))) return;
    if (Date.now() > deadline) throw new Error(`the database server did not accept connections within ${Math.round(timeoutMs / 1000)} s`);
    await sleep(500);
  }
}

/**
 * A one-off server of the database's image on `volume` (a restore filling a fresh volume, a
 * verification's throwaway), started and ready; a leftover of the same name is replaced first.
 */
export async function startOneOff(
  x: ServerDeps,
  d: Pick<DesiredDatabase, "id" | "environmentId" | "engine" | "image">,
  o: { name: string; role: DatabaseRole; volume: string; credentials: DatabaseCredentials },
): Promise<string> {
  await x.runtime.removeContainer(o.name);
  await ensureVolume(x, d, o.volume);
  const id = await x.runtime.createContainer(databaseContainerOptions(x, d, o));
  if (id === null) throw new Error(`container name ${o.name} is taken; remove that container`);
  await x.runtime.startContainer(id);
  await waitReady(x, d, id, o.credentials);
  return id;
}

/** Removes a one-off and, unless kept, its volume; never throws (what is left is removed next time). */
export async function removeOneOff(x: ServerDeps, name: string, volume: string | null): Promise<void> {
  await x.runtime.removeContainer(name).catch(() => {});
  if (volume) await x.runtime.removeVolume(volume).catch(() => {});
}
