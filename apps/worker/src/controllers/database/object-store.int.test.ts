import { createHash, randomBytes } from "node:crypto";
import { openSync, closeSync, readSync, writeSync, readdirSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { Readable } from "node:stream";
import { freePort } from "@levelrail/testkit/registry";
import { startS3Server, type S3Server } from "@levelrail/testkit/s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ObjectStoreOptions, s3ObjectStore as s3ObjectStoreOf, type StorageTarget } from "./object-store";
import { StorageError } from "./storage-error";

const MiB = 1024 * 1024;
const bucket = `lr-os-${randomBytes(3).toString("hex")}`;
let s3: S3Server;
let target: StorageTarget;
/**
 * The S3 server is on loopback: an installation that allows private targets
 * (LEVELRAIL_ALLOW_PRIVATE_TARGETS=true); the default policy is tested apart, without connecting.
 */
const s3ObjectStore = (t: StorageTarget, o: ObjectStoreOptions = {}) => s3ObjectStoreOf(t, { policy: { allowPrivate: true }, ...o });
/** Every message an error produced in this file, to check none holds the secret key. */
const messages: string[] = [];

beforeAll(async () => {
  s3 = await startS3Server({ buckets: [bucket] });
  target = { endpoint: s3.endpoint, bucket, region: s3.region, accessKey: s3.accessKey, secretKey: s3.secretKey };
});
afterAll(async () => {
  await s3?.stop();
  for (const m of messages) expect(m).not.toContain(s3.secretKey);
});

/** `total` bytes in 1 MiB chunks, the same bytes for the same seed, never held whole. */
function bytes(total: number, seed: string): Readable {
  const block = createHash("sha512").update(seed).digest();
  const base = Buffer.alloc(MiB);
  for (let i = 0; i < MiB; i += block.length) block.copy(base, i);
  return Readable.from(
    (function* () {
      for (let off = 0, n = 0; off < total; off += MiB, n++) {
        const chunk = Buffer.from(base.subarray(0, Math.min(MiB, total - off)));
        chunk.writeUInt32BE(n, 0);
        yield chunk;
      }
    })(),
  );
}

/** Emits `before` bytes, then fails like a dump whose producer died. */
function failing(before: number): Readable {
  const src = bytes(before, "failing");
  return Readable.from(
    (async function* () {
      for await (const c of src) yield c as Buffer;
      throw new Error("pg_dump: error: query failed: connection lost");
    })(),
  );
}

async function sha256Of(stream: Readable): Promise<{ sha256: string; size: number }> {
  const h = createHash("sha256");
  let size = 0;
  for await (const c of stream) {
    h.update(c as Buffer);
    size += (c as Buffer).length;
  }
  return { sha256: h.digest("hex"), size };
}

async function caught(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    messages.push(err.message, String(err.stack));
    return err;
  }
  throw new Error("expected a rejection");
}

/** Object keys stored in the bucket, and multipart uploads still open (s3rver keeps them under `._S3rver_uploads`). */
function onDisk(): string[] {
  return readdirSync(`${s3.dir}/${bucket}`, { recursive: true, encoding: "utf8" });
}

describe("s3ObjectStore against a real S3 server on loopback", () => {
  it("streams ~100 MB up in bounded memory, hashing while streaming, and streams it back", async () => {
    const store = s3ObjectStore(target);
    const total = 100 * MiB + 12_345;
    const expected = await sha256Of(bytes(total, "big"));
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const started = performance.now();
    const result = await store.upload("lr/big.dump", bytes(total, "big"));
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const growth = (peak - before) / MiB;
    console.log(`upload ${(total / MiB).toFixed(1)} MiB: ${(total / MiB / seconds).toFixed(1)} MiB/s, rss growth ${growth.toFixed(1)} MiB`);
    expect(result).toEqual({ sizeBytes: total, sha256: expected.sha256 });
    expect(growth).toBeLessThan(64);

    expect(await store.exists("lr/big.dump")).toBe(true);
    const down = performance.now();
    const back = await sha256Of(await store.download("lr/big.dump"));
    console.log(`download: ${(total / MiB / ((performance.now() - down) / 1000)).toFixed(1)} MiB/s`);
    expect(back).toEqual({ sha256: expected.sha256, size: total });

    await store.remove("lr/big.dump");
    expect(await store.exists("lr/big.dump")).toBe(false);
    await store.remove("lr/big.dump"); // a missing one is fine
  });

  it("a small object is one request, and round-trips", async () => {
    const store = s3ObjectStore(target);
    const r = await store.upload("lr/small.dump", bytes(1000, "small"));
    expect(r.sizeBytes).toBe(1000);
    expect(await sha256Of(await store.download("lr/small.dump"))).toEqual({ sha256: r.sha256, size: 1000 });
    await store.remove("lr/small.dump");
  });

  it("a body that fails leaves no object, multi-part or under one part, and rejects with the body's error", async () => {
    const store = s3ObjectStore(target, { partSize: 5 * MiB });
    for (const [key, size] of [["lr/fail-multi.dump", 17 * MiB], ["lr/fail-small.dump", 2 * MiB]] as const) {
      const err = await caught(store.upload(key, failing(size)));
      expect(err.message).toBe("pg_dump: error: query failed: connection lost");
      expect(await store.exists(key)).toBe(false);
    }
    const left = onDisk().filter((p) => p.includes("fail-") || /_S3rver_uploads\/./.test(p));
    expect(left).toEqual([]);
  });

  it("an abort leaves no object", async () => {
    const store = s3ObjectStore(target, { partSize: 5 * MiB });
    const ac = new AbortController();
    const body = bytes(40 * MiB, "abort");
    let seen = 0;
    body.on("data", (c: Buffer) => {
      seen += c.length;
      if (seen >= 12 * MiB) ac.abort();
    });
    body.pause();
    const err = await caught(store.upload("lr/aborted.dump", body, ac.signal));
    expect(err.name).toBe("AbortError");
    expect(await store.exists("lr/aborted.dump")).toBe(false);
    expect(onDisk().filter((p) => p.includes("aborted") || /_S3rver_uploads\/./.test(p))).toEqual([]);
  });

  it("refusals name the target's reason and what to do, never the secret", async () => {
    const wrongKey = s3ObjectStore({ ...target, accessKey: "NOT-A-KEY" });
    const e1 = await caught(wrongKey.upload("lr/x.dump", bytes(1000, "x")));
    expect(e1).toBeInstanceOf(StorageError);
    expect(e1.message).toBe(
      "storage target refused the request: InvalidAccessKeyId (HTTP 403): check the access key",
    );

    const wrongSecret = s3ObjectStore({ ...target, secretKey: `${s3.secretKey}-wrong` });
    const e2 = await caught(wrongSecret.upload("lr/x.dump", bytes(6 * MiB, "x")));
    expect(e2.message).toBe("storage target refused the request: SignatureDoesNotMatch (HTTP 403): check the secret key");
    expect((e2 as StorageError).retryable).toBe(false);
    expect(e2.message).not.toContain("-wrong");
    const e2b = await caught(wrongSecret.download("lr/x.dump"));
    expect((e2b as StorageError).reason).toBe("SignatureDoesNotMatch");

    const noBucket = s3ObjectStore({ ...target, bucket: "lr-no-such-bucket" });
    const e3 = await caught(noBucket.upload("lr/x.dump", bytes(1000, "x")));
    expect(e3.message).toBe(`bucket "lr-no-such-bucket" does not exist on ${s3.endpoint} (NoSuchBucket): create it or fix the target's bucket`);

    const e4 = await caught(s3ObjectStore(target).download("lr/never-written.dump"));
    expect((e4 as StorageError).reason).toBe("NoSuchKey");
    expect(await s3ObjectStore(target).exists("lr/never-written.dump")).toBe(false);
  });

  it("a target that is down fails within seconds, naming the endpoint", async () => {
    const port = await freePort(); // closed: nothing listens there
    const down = s3ObjectStore({ ...target, endpoint: `http://127.0.0.1:${port}` });
    const started = Date.now();
    const err = await caught(down.upload("lr/x.dump", bytes(6 * MiB, "x")));
    const ms = Date.now() - started;
    console.log(`down target failed in ${ms} ms: ${err.message}`);
    expect(ms).toBeLessThan(10_000);
    expect(err.message).toMatch(new RegExp(`^storage target http://127\\.0\\.0\\.1:${port} cannot be reached: connect ECONNREFUSED`));
    expect((err as StorageError).retryable).toBe(true);
    expect(await caught(down.exists("lr/x.dump"))).toBeInstanceOf(StorageError);
  });

  it("a target that accepts connections and never answers fails after the idle timeout, not forever", async () => {
    const sockets: Socket[] = [];
    const hang: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => hang.listen(0, "127.0.0.1", r));
    const { port } = hang.address() as { port: number };
    try {
      const store = s3ObjectStore({ ...target, endpoint: `http://127.0.0.1:${port}` }, { idleTimeoutMs: 1000, maxAttempts: 1 });
      const started = Date.now();
      const err = await caught(store.upload("lr/x.dump", bytes(1000, "x")));
      console.log(`hanging target failed in ${Date.now() - started} ms: ${err.message}`);
      expect(Date.now() - started).toBeLessThan(8_000);
      expect((err as StorageError).reason).toBe("TimeoutError");
      expect(err.message).toContain(`http://127.0.0.1:${port}`);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => hang.close(() => r()));
    }
  });

  it("a download whose reader pauses is not a stall; a target that stops sending mid-body is", async () => {
    const store = s3ObjectStore(target, { idleTimeoutMs: 1000 });
    const stored = await store.upload("lr/slow-reader.dump", bytes(3 * MiB, "slow"));
    const body = await store.download("lr/slow-reader.dump");
    await new Promise((r) => setTimeout(r, 2500)); // like a restore busy building an index
    expect(await sha256Of(body)).toEqual({ sha256: stored.sha256, size: stored.sizeBytes });
    await store.remove("lr/slow-reader.dump");

    const sockets: Socket[] = [];
    const stalling: Server = createServer((s) => {
      sockets.push(s);
      s.once("data", () => s.write("HTTP/1.1 200 OK\r\ncontent-length: 1000000\r\ncontent-type: application/octet-stream\r\n\r\n" + "x".repeat(100)));
    });
    await new Promise<void>((r) => stalling.listen(0, "127.0.0.1", r));
    const { port } = stalling.address() as { port: number };
    try {
      const half = s3ObjectStore({ ...target, endpoint: `http://127.0.0.1:${port}` }, { idleTimeoutMs: 1000, maxAttempts: 1 });
      const started = Date.now();
      const err = await caught(sha256Of(await half.download("lr/x.dump")));
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(err).toBeInstanceOf(StorageError);
      expect((err as StorageError).reason).toBe("TimeoutError");
      expect(err.message).toContain(`http://127.0.0.1:${port}`);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => stalling.close(() => r()));
    }
  });

  it("an object corrupted on the server's disk downloads with a different sha256", async () => {
    const store = s3ObjectStore(target);
    const stored = await store.upload("lr/db/2026-01-01T00:00:00.000Z.dump", bytes(3 * MiB, "corrupt"));
    const file = s3.objectPath(bucket, "lr/db/2026-01-01T00:00:00.000Z.dump");
    const fd = openSync(file, "r+");
    const b = Buffer.alloc(16);
    readSync(fd, b, 0, 16, MiB);
    for (let i = 0; i < b.length; i++) b[i] = (b[i] ?? 0) ^ 0xff;
    writeSync(fd, b, 0, 16, MiB);
    closeSync(fd);
    const back = await sha256Of(await store.download("lr/db/2026-01-01T00:00:00.000Z.dump"));
    expect(back.size).toBe(stored.sizeBytes);
    expect(back.sha256).not.toBe(stored.sha256);
    await store.remove("lr/db/2026-01-01T00:00:00.000Z.dump");
  });
});

describe("the installation's address policy (LEVELRAIL_ALLOW_PRIVATE_TARGETS unset)", () => {
  it("refuses a loopback, private or link-local endpoint, or a name resolving to one, without connecting", async () => {
    let connections = 0;
    const counter: Server = createServer((sock) => {
      connections++;
      sock.destroy();
    });
    await new Promise<void>((r) => counter.listen(0, "127.0.0.1", r));
    const { port } = counter.address() as { port: number };
    try {
      for (const endpoint of [`http://127.0.0.1:${port}`, `http://localhost:${port}`, "http://169.254.169.254", "http://[::127.0.0.1]:9000", "http://10.0.0.5:9000"]) {
        const store = s3ObjectStoreOf({ ...target, endpoint });
        const err = await caught(store.upload("lr/x.dump", bytes(1000, "x")));
        expect(err, endpoint).toBeInstanceOf(StorageError);
        expect((err as StorageError).reason).toBe("TargetRefused");
        expect(err.message).toContain("refused by the installation's address policy");
        expect((err as StorageError).retryable).toBe(false);
        expect((await caught(store.exists("lr/x.dump"))).message).toContain("address policy");
      }
      // A name is checked as it resolves, at connect time, and the client connects to the address checked.
      const viaName = s3ObjectStoreOf(
        { ...target, endpoint: `http://s3.example.com:${port}` },
        { maxAttempts: 1, policy: { allowPrivate: false, lookup: async () => [{ address: "127.0.0.1", family: 4 }] } },
      );
      const err = await caught(viaName.download("lr/x.dump"));
      expect((err as StorageError).reason).toBe("TargetRefused");
      expect(err.message).toBe(
        `storage target http://s3.example.com:${port} refused by the installation's address policy: s3.example.com resolves to 127.0.0.1, a loopback address; refused (private targets are allowed only by the installation's LEVELRAIL_ALLOW_PRIVATE_TARGETS)`,
      );
      expect(connections).toBe(0);
      // With the setting, the same name reaches the checked address (here the loopback server).
      const allowed = s3ObjectStoreOf(
        { ...target, endpoint: `http://s3.example.com:${s3.endpoint.split(":").at(-1)}` },
        { policy: { allowPrivate: true, lookup: async () => [{ address: "127.0.0.1", family: 4 }] } },
      );
      expect(await allowed.exists("lr/never-written.dump")).toBe(false);
    } finally {
      await new Promise<void>((r) => counter.close(() => r()));
    }
  });
});
