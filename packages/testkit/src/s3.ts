import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import { startSigV4Front } from "./sigv4-front";

export interface S3Server {
  /** `http://127.0.0.1:<port>`: path-style addressing (`<endpoint>/<bucket>/<key>`). */
  endpoint: string;
  region: string;
  accessKey: string;
  secretKey: string;
  /** Where the server keeps its files. */
  dir: string;
  /** The file holding an object's bytes (flip bytes in it to corrupt the object as stored). */
  objectPath(bucket: string, key: string): string;
  /** Stops the server and removes its files. */
  stop(): Promise<void>;
}

/**
 * A real S3-protocol server on loopback (the `s3rver` npm package), with `buckets` created, in a
 * temp dir, silent. A signature-checking front sits before it (see `sigv4-front.ts`), so a wrong
 * access key is refused with `InvalidAccessKeyId` and a wrong secret key with
 * `SignatureDoesNotMatch`, as a real target does.
 */
export async function startS3Server(opts: { buckets: string[] }): Promise<S3Server> {
  const dir = mkdtempSync(join(tmpdir(), "lr-s3-"));
  // s3rver knows one hard-coded key id (S3RVER) and checks only the id for V4; the front checks the
  // signature with this secret, generated per server.
  const accessKey = "S3RVER";
  const secretKey = `s3-secret-${randomBytes(12).toString("hex")}`;
  const s3rver = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: dir,
    vhostBuckets: false,
    configureBuckets: opts.buckets.map((name) => ({ name, configs: [] })),
  });
  let front: { port: number; close(): Promise<void> } | undefined;
  try {
    const { port: upstreamPort }: AddressInfo = await s3rver.run();
    front = await startSigV4Front({ upstreamPort, accessKeyId: accessKey, secretAccessKey: secretKey });
  } catch (err) {
    await s3rver.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const started = front;
  return {
    endpoint: `http://127.0.0.1:${started.port}`,
    region: "us-east-1",
    accessKey,
    secretKey,
    dir,
    // s3rver's filesystem store: <dir>/<bucket>/<key dirs>/<last segment>._S3rver_object
    objectPath(bucket, key) {
      const parts = key.split("/");
      const last = parts.pop() ?? "";
      return join(dir, bucket, ...parts, `${last}._S3rver_object`);
    },
    async stop() {
      await started.close();
      await s3rver.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
