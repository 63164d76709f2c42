import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSigV4Front } from "./sigv4-front";

/**
 * Runs s3rver in a child process (so its memory is not the test's), which exits when its stdin
 * closes: a test process that dies does not leave it behind. Prints `listening on <port>`.
 */
const CHILD = `
const S3rver = require(process.argv[1]);
const opts = JSON.parse(process.argv[2]);
process.stdin.on("end", () => process.exit(0)).on("error", () => process.exit(0)).resume();
new S3rver(opts).run().then(
  (a) => console.log("listening on " + a.port),
  (e) => { console.error(String(e && e.stack || e)); process.exit(1); },
);
`;

async function spawnS3rver(dir: string, buckets: string[]): Promise<{ proc: ChildProcess; port: number }> {
  const main = createRequire(import.meta.url).resolve("s3rver");
  const opts = {
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: dir,
    vhostBuckets: false,
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
  };
  const proc = spawn(process.execPath, ["-e", CHILD, main, JSON.stringify(opts)], { stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`s3rver did not start in 20 s: ${output.slice(-2000)}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /listening on (\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    proc.stdout?.on("data", onData);
    proc.stderr?.on("data", onData);
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`s3rver exited with ${String(code)}: ${output.slice(-2000)}`));
    });
  });
  proc.stdout?.resume();
  proc.stderr?.resume();
  return { proc, port };
}

const stopProcess = (proc: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once("exit", () => resolve());
    proc.kill("SIGTERM");
  });

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
 * A real S3-protocol server on loopback (the `s3rver` npm package, its CLI in a child process), with
 * `buckets` created, in a temp dir, silent. A front sits before it (see `sigv4-front.ts`) that checks
 * signatures, so a wrong access key is refused with `InvalidAccessKeyId` and a wrong secret key with
 * `SignatureDoesNotMatch` as a real target does, and that answers AbortMultipartUpload, which s3rver
 * lacks (it keeps the parts and answers 405).
 */
export async function startS3Server(opts: { buckets: string[] }): Promise<S3Server> {
  const dir = mkdtempSync(join(tmpdir(), "lr-s3-"));
  // s3rver knows one hard-coded key id (S3RVER) and checks only the id for V4; the front checks the
  // signature with this secret, generated per server.
  const accessKey = "S3RVER";
  const secretKey = `s3-secret-${randomBytes(12).toString("hex")}`;
  let server: { proc: ChildProcess; port: number } | undefined;
  let front: { port: number; close(): Promise<void> } | undefined;
  try {
    server = await spawnS3rver(dir, opts.buckets);
    front = await startSigV4Front({
      upstreamPort: server.port,
      accessKeyId: accessKey,
      secretAccessKey: secretKey,
      // s3rver keeps a multipart upload's parts in <dir>/<bucket>/._S3rver_uploads/<uploadId>/
      abortMultipart(bucket, uploadId) {
        if (!/^[0-9a-f]+$/.test(uploadId) || bucket.includes("..") || bucket.includes("/")) return false;
        const path = join(dir, bucket, "._S3rver_uploads", uploadId);
        if (!existsSync(path)) return false;
        rmSync(path, { recursive: true, force: true });
        return true;
      },
    });
  } catch (err) {
    if (server) await stopProcess(server.proc);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const started = front;
  const { proc } = server;
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
      await stopProcess(proc);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
