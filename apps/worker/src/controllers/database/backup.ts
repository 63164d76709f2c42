import { createHash, randomBytes } from "node:crypto";
import { PassThrough, type Readable, Transform } from "node:stream";
import { finished } from "node:stream/promises";
import type { ManagedContainer } from "@levelrail/docker";
import { type BackupVerification, compareInventories } from "@levelrail/spec/database";
import { DatabaseRoles, databaseHelperName } from "@levelrail/spec/naming";
import type { Redactor } from "@levelrail/spec/redact";
import { type OneOffDeps, removeOneOff, startOneOff } from "./oneoff";
import type { ObjectStore, OutputStream } from "./ports";
import { objectKeyOf } from "./schedule";
import type { BackupRecord, DatabaseStore, DesiredDatabase, TargetCredentials } from "./store";

export interface BackupDeps extends OneOffDeps {
  store: DatabaseStore;
  /** Opens a backup target. */
  objects: (target: TargetCredentials) => ObjectStore;
  /** This worker process: a running backup of another one was cut short. */
  runner: string;
  /**
   * Aborted when this worker stops leading: every client it runs (dump, restore, psql) and every
   * upload stops at once, and the store refuses its writes (they are fenced by the leader's token).
   */
  signal?: AbortSignal;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The dump's bytes, ended only once the dump exited 0: a dump that fails half way errors the
 * stream instead, so the upload is aborted and no partial object is ever stored as a backup.
 */
function untilClean(out: OutputStream): Readable {
  const gate = new PassThrough();
  out.stdout.on("error", (err: Error) => gate.destroy(err));
  // The upload gave up (the target refused): the dump's reader leaves too, so the engine ends it.
  gate.on("close", () => {
    if (!out.stdout.readableEnded) out.stdout.destroy();
  });
  out.stdout.pipe(gate, { end: false });
  out.stdout.on("end", () => {
    out.done.then(
      ({ exitCode, stderrTail }) => (exitCode === 0 ? gate.end() : gate.destroy(new Error(`the dump failed (exit ${exitCode}): ${stderrTail.trim().split("\n").slice(-3).join(" | ")}`))),
      (err: unknown) => gate.destroy(err instanceof Error ? err : new Error(String(err))),
    );
  });
  return gate;
}

/**
 * Dumps the database from one snapshot (its inventory counted inside that snapshot), streams the
 * dump to the target (sha256 while streaming), then verifies it by a restore from the target.
 * Every outcome is recorded on the backup; nothing here throws for a failed backup.
 */
export async function takeBackup(x: BackupDeps, d: DesiredDatabase, b: BackupRecord, server: ManagedContainer, redact: Redactor): Promise<void> {
  const started = x.now();
  const target = b.targetId ? await x.store.target(d.orgId, b.targetId) : null;
  if (!target) {
    await x.store.updateBackup(b.id, { status: "failed", step: null, message: "its backup target was deleted", finishedAt: started, runner: x.runner });
    return;
  }
  const secretRedact: Redactor = (text) => redact(text).split(target.secretKey).join("[redacted]");
  await x.store.updateBackup(b.id, { runner: x.runner, startedAt: started, step: "dumping", message: `dumping ${d.name} to ${target.name}` });
  const engine = x.engine(d.engine);
  const key = objectKeyOf(x.shortName, d.id, started);
  const objects = x.objects(target);
  let stored: { sizeBytes: number; sha256: string; inventory: BackupRecord["inventory"] };
  try {
    const snapshot = await engine.holdSnapshot(server.id, d.credentials, x.signal);
    try {
      const out = await engine.dump(server.id, d.credentials, snapshot.id, x.signal);
      // Its outcome is read through the gate; a dump cut off by a failed upload rejects unobserved otherwise.
      out.done.catch(() => {});
      const { sizeBytes, sha256 } = await objects.upload(key, untilClean(out), x.signal);
      stored = { sizeBytes, sha256, inventory: snapshot.inventory };
    } finally {
      await snapshot.close().catch(() => {});
    }
  } catch (err) {
    await objects.remove(key).catch(() => {});
    await x.store.updateBackup(b.id, { status: "failed", step: null, message: secretRedact(message(err)), finishedAt: x.now() });
    return;
  }
  await x.store.updateBackup(b.id, {
    objectKey: key,
    sizeBytes: stored.sizeBytes,
    sha256: stored.sha256,
    ...(stored.inventory ? { inventory: stored.inventory } : {}),
    step: "verifying",
    message: `stored ${stored.sizeBytes} bytes; verifying by a restore`,
  });
  const verification = await verifyBackup(x, d, { id: b.id, objectKey: key, sha256: stored.sha256, inventory: stored.inventory }, target, secretRedact);
  await x.store.updateBackup(b.id, {
    status: verification.ok ? "verified" : "unverified",
    step: null,
    verification,
    message: verification.ok ? "verified: restored and compared" : `unverified: ${verification.differences[0] ?? "the comparison failed"}`,
    finishedAt: x.now(),
  });
}

/** A Transform that hashes what passes through it. */
export function hashing(): { stream: Transform; digest: () => string } {
  const hash = createHash("sha256");
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return { stream, digest: () => hash.digest("hex") };
}

const changedObject = (now: string, then: string | null) => `the stored object's sha256 is ${now}, not the ${then} recorded when it was written: it changed since`;

/** The sha256 of a whole stream, read to its end. */
async function sha256Of(body: Readable): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of body) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** The body as it streams on, hashed; `rest()` reads what the consumer left (it still counts) and gives the hash. */
export function hashedBody(body: Readable): { stream: Transform; rest: () => Promise<string> } {
  const hashed = hashing();
  body.on("error", (err: Error) => hashed.stream.destroy(err));
  body.pipe(hashed.stream);
  return {
    stream: hashed.stream,
    async rest() {
      if (!hashed.stream.readableEnded) {
        hashed.stream.resume();
        await finished(hashed.stream);
      }
      return hashed.digest();
    },
  };
}

/**
 * Restores the object from the target (downloaded, not the local stream) into a throwaway server of
 * the same image and compares it with what the snapshot held: schema, every table's rows, and the
 * object's sha256. The throwaway container and its volume are removed whatever happens.
 */
export async function verifyBackup(
  x: BackupDeps,
  d: DesiredDatabase,
  b: Pick<BackupRecord, "id" | "objectKey" | "sha256" | "inventory">,
  target: TargetCredentials,
  redact: Redactor,
): Promise<BackupVerification> {
  const at = () => x.now().toISOString();
  if (!b.objectKey || !b.inventory) return { at: at(), ok: false, differences: ["nothing was recorded to compare with"], sha256: null };
  const name = databaseHelperName(x.shortName, d.name, "verify", b.id);
  // A password of its own: the throwaway is no door into the database's data for anyone who knows the real one.
  const credentials = { ...d.credentials, password: randomBytes(18).toString("base64url") };
  let body: Readable | null = null;
  try {
    const id = await startOneOff(x, d, { name, role: DatabaseRoles.verify, volume: name, credentials });
    body = await x.objects(target).download(b.objectKey);
    const hashed = hashedBody(body);
    const engine = x.engine(d.engine);
    try {
      await engine.restore(id, credentials, hashed.stream, x.signal);
    } catch (err) {
      // The restore stopped reading: hash the stored object on its own, to say whether it changed.
      const sha256 = await x.objects(target).download(b.objectKey).then(sha256Of, () => null);
      const changed = sha256 && sha256 !== b.sha256 ? [changedObject(sha256, b.sha256)] : [];
      return { at: at(), ok: false, differences: [`the restore failed: ${redact(message(err))}`, ...changed], sha256 };
    }
    const sha256 = await hashed.rest();
    const differences: string[] = [];
    if (sha256 !== b.sha256) differences.push(changedObject(sha256, b.sha256));
    differences.push(...compareInventories(b.inventory, await engine.inventory(id, credentials, x.signal)));
    return { at: at(), ok: differences.length === 0, differences, sha256 };
  } catch (err) {
    return { at: at(), ok: false, differences: [`could not verify: ${redact(message(err))}`], sha256: null };
  } finally {
    body?.destroy();
    await removeOneOff(x, name, name);
  }
}
