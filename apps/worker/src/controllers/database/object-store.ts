import { createHash } from "node:crypto";
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { finished, Readable, Transform } from "node:stream";
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { type TargetPolicy, checkedLookup, policyProblem } from "@levelrail/services/notifications/address";
import type { StorageTarget } from "@levelrail/spec/env";
import type { ObjectStore } from "./ports";
import { endpointOrigin, StorageError, toStorageError } from "./storage-error";

/** One S3-compatible backup target, with its unsealed credentials (the same shape a storage attachment resolves to). */
export type { StorageTarget };

export interface ObjectStoreOptions {
  /**
   * The installation's address policy (LEVELRAIL_ALLOW_PRIVATE_TARGETS): unless private targets are
   * allowed, the endpoint's host and every address it resolves to must be public, and the client
   * connects to the address checked. Default: private targets refused.
   */
  policy?: TargetPolicy;
  /** How long establishing a connection may take (default 5 s). */
  connectTimeoutMs?: number;
  /** How long a connection may stay silent while a request waits or data should flow (default 30 s); not a cap on the total. */
  idleTimeoutMs?: number;
  /** Multipart part size (default 5 MiB, S3's least: 10,000 parts make an object of up to 48.8 GiB). */
  partSize?: number;
  /**
   * Parts uploaded at once (default 2). Memory stays about `partSize × (queueSize + 2)` whatever the
   * object's size (the parts in flight, the one being filled, and its copy as it is joined).
   */
  queueSize?: number;
  /** Attempts per request, the SDK's retries included (default 3). */
  maxAttempts?: number;
}

const MiB = 1024 * 1024;
/** S3's smallest part: the least memory per part in flight. */
const DEFAULT_PART_SIZE = 5 * MiB;

/** An error named like the platform's aborts, carrying the signal's reason when it has one. */
function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return Object.assign(new Error("upload aborted"), { name: "AbortError" });
}

/**
 * Passes `body` through, failing it with a `StorageError` when the target stops sending while the
 * reader still wants data (a reader that is slow, e.g. a restore building an index, is not a stall).
 * The SDK's own idle timeout is switched off for the body for that reason.
 */
function watchBody(body: Readable, idleMs: number, describe: (err: unknown) => StorageError): Readable {
  let last = Date.now();
  const out = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      last = Date.now();
      cb(null, chunk);
    },
  });
  const timer = setInterval(() => {
    if (out.readableLength >= out.readableHighWaterMark) last = Date.now(); // the reader is the slow one
    if (Date.now() - last >= idleMs) {
      out.destroy(describe(Object.assign(new Error(`no data for ${Math.round(idleMs / 1000)} s`), { name: "TimeoutError" })));
    }
  }, Math.min(idleMs, 1000));
  timer.unref();
  const socket: unknown = (body as { socket?: unknown }).socket;
  if (socket && typeof socket === "object" && "setTimeout" in socket && typeof socket.setTimeout === "function") {
    socket.setTimeout(0);
  }
  body.on("error", (err) => out.destroy(describe(err)));
  out.on("close", () => {
    clearInterval(timer);
    if (!body.destroyed) body.destroy();
  });
  body.pipe(out);
  return out;
}

/**
 * The `ObjectStore` of one S3-compatible target: path-style addressing, short connection timeout and
 * an idle (not total) timeout so a target that is down or hangs fails in seconds while a big upload
 * still works, bounded multipart uploads with sha256 and size computed while streaming, and every
 * failure a `StorageError` naming the target's reason (never a credential).
 */
export function s3ObjectStore(target: StorageTarget, opts: ObjectStoreOptions = {}): ObjectStore {
  const origin = endpointOrigin(target.endpoint);
  const idleMs = opts.idleTimeoutMs ?? 30_000;
  const partSize = opts.partSize ?? DEFAULT_PART_SIZE;
  const queueSize = opts.queueSize ?? 2;
  const redact = [target.secretKey];
  const fail = (err: unknown, key?: string) =>
    toStorageError(err, { endpoint: target.endpoint, bucket: target.bucket, key, redact });

  let url: URL | undefined;
  try {
    url = new URL(target.endpoint);
  } catch {
    url = undefined;
  }
  const policy = opts.policy ?? { allowPrivate: false };
  // An address literal is never looked up (Node connects to it as it is): checked here; a name is
  // checked, resolved, at every connection by the agents' lookup.
  const refusedHost = url ? policyProblem(url.hostname, policy) : null;
  const invalid =
    !url || (url.protocol !== "http:" && url.protocol !== "https:")
      ? new StorageError("storage target endpoint is not an http(s) URL: fix the target's endpoint", { reason: "InvalidEndpoint", retryable: false })
      : refusedHost
        ? new StorageError(`storage target ${origin} refused by the installation's address policy: ${refusedHost}`, { reason: "TargetRefused", retryable: false })
        : undefined;
  const lookup = checkedLookup(policy);

  const client = new S3Client({
    endpoint: origin,
    region: target.region || "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: target.accessKey, secretAccessKey: target.secretKey },
    maxAttempts: opts.maxAttempts ?? 3,
    // S3-compatible servers do not all speak the newer flexible checksums (aws-chunked bodies);
    // the backup's own sha256 and the restore check integrity end to end.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    requestHandler: {
      connectionTimeout: opts.connectTimeoutMs ?? 5_000,
      socketTimeout: idleMs,
      httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 50, lookup }),
      httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 50, lookup }),
    },
  });
  const check = () => {
    if (invalid) throw invalid;
  };

  const remove = async (key: string): Promise<void> => {
    check();
    try {
      await client.send(new DeleteObjectCommand({ Bucket: target.bucket, Key: key }));
    } catch (err) {
      throw fail(err, key);
    }
  };

  return {
    async upload(key, body, signal) {
      check();
      const hash = createHash("sha256");
      let sizeBytes = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          hash.update(chunk);
          sizeBytes += chunk.length;
          cb(null, chunk);
        },
      });
      // A failure of the body (its producer died) or an abort: the first one wins and is what the
      // upload rejects with; it ends the counter with an error, so lib-storage never completes an
      // object from a partial body (its chunker throws instead of yielding a last part).
      let failure: Error | undefined;
      let settled = false;
      const failBody = (err: Error) => {
        if (failure || settled) return;
        failure = err;
        counter.destroy(err);
      };
      finished(body, { writable: false }, (err) => {
        if (err) failBody(err);
      });
      const onAbort = () => signal && failBody(abortError(signal));
      if (signal?.aborted) onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      body.pipe(counter);

      let targetError: unknown;
      try {
        const upload = new Upload({
          client,
          params: { Bucket: target.bucket, Key: key, Body: counter },
          partSize,
          queueSize,
          leavePartsOnError: false, // a failed multipart upload is aborted: no parts left behind
        });
        await upload.done();
      } catch (err) {
        targetError = err;
      } finally {
        settled = true;
        signal?.removeEventListener("abort", onAbort);
      }
      if (failure === undefined && targetError === undefined) return { sizeBytes, sha256: hash.digest("hex") };

      // Stop the producer, and make sure no object is left: an abort that came while the last
      // request was in flight may have let it complete, and a timed-out request may have landed.
      if (!body.destroyed) body.destroy();
      if (!counter.destroyed) counter.destroy();
      const mapped = targetError === undefined ? undefined : fail(targetError, key);
      if (failure || mapped?.retryable) await remove(key).catch(() => undefined);
      throw failure ?? mapped;
    },

    async download(key) {
      check();
      let body: unknown;
      try {
        const res = await client.send(new GetObjectCommand({ Bucket: target.bucket, Key: key }));
        body = res.Body;
      } catch (err) {
        throw fail(err, key);
      }
      if (!(body instanceof Readable)) {
        throw new StorageError(`storage target ${origin} returned no body for "${key}"`, { reason: "NoBody", retryable: true });
      }
      return watchBody(body, idleMs, (err) => fail(err, key));
    },

    remove,

    async exists(key) {
      check();
      try {
        await client.send(new HeadObjectCommand({ Bucket: target.bucket, Key: key }));
        return true;
      } catch (err) {
        const e = fail(err, key);
        if (e.reason === "NotFound" || e.reason === "NoSuchKey") return false;
        throw e;
      }
    },
  };
}
