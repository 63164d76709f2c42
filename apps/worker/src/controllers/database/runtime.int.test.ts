import { createHash, randomBytes } from "node:crypto";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { dockerRuntime } from "@levelrail/docker";
import { ensurePostgresImage, POSTGRES_TEST_IMAGE } from "@levelrail/testkit/postgres-image";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The Runtime calls the database controller leans on, against the real engine: an exec whose
// stdout is a byte stream with backpressure and whose stdin half-closes, named volumes, and
// joining a network under an alias. The PostgreSQL test image carries a static busybox.
const runtime = dockerRuntime({ dockerHost: process.env.DOCKER_HOST });
const { docker } = runtime;
const run = `${process.env.LEVELRAIL_SHORT_NAME ?? "lrtest"}-dbrt-${randomBytes(3).toString("hex")}`;
const LABELS = { "levelrail.test": "true", "levelrail.test.run": run };
let box = "";

/** Everything `stream` yields, with its sha256. */
async function digest(stream: Readable): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest("hex") };
}

beforeAll(async () => {
  await ensurePostgresImage(docker);
  const c = await docker.createContainer({ name: `${run}-box`, Image: POSTGRES_TEST_IMAGE, Cmd: ["/bin/busybox", "sleep", "3600"], Labels: LABELS });
  await c.start();
  box = c.id;
});

afterAll(async () => {
  await docker.getContainer(`${run}-box`).remove({ force: true, v: true }).catch(() => {});
  for (const v of await runtime.listVolumes([`levelrail.test.run=${run}`])) await runtime.removeVolume(v.name).catch(() => {});
  await docker.getNetwork(`${run}-net`).remove().catch(() => {});
});

describe("execStream", () => {
  it("streams stdout as bytes, keeps only the tail of stderr, and resolves the exit code", async () => {
    // a constant script (no value interpolated): 3000 lines on stderr, a few bytes on stdout, exit 7
    const script = "i=0; while [ $i -lt 3000 ]; do echo \"complaint $i\" >&2; i=$((i+1)); done; printf 'out\\000put'; exit 7";
    const out = await runtime.execStream(box, ["/bin/sh", "-c", script], {});
    const body = await digest(out.stdout);
    const { exitCode, stderrTail } = await out.done;
    expect(exitCode).toBe(7);
    expect(body).toEqual({ bytes: 7, sha256: createHash("sha256").update("out\0put").digest("hex") });
    expect(Buffer.byteLength(stderrTail)).toBeLessThanOrEqual(8192);
    expect(stderrTail.endsWith("complaint 2999\n")).toBe(true);
    expect(stderrTail).not.toContain("complaint 0\n");
  });

  it("passes env and user to the process", async () => {
    const out = await runtime.execStream(box, ["/bin/busybox", "env"], { env: ["LEVELRAIL_PROBE=a b'c"], user: "999:999" });
    const text = (await Buffer.concat(await out.stdout.toArray()).toString());
    expect(text).toContain("LEVELRAIL_PROBE=a b'c\n");
    expect((await out.done).exitCode).toBe(0);
    const id = await runtime.execStream(box, ["/bin/busybox", "id", "-u"], { user: "999:999" });
    expect(Buffer.concat(await id.stdout.toArray()).toString()).toBe("999\n");
  });

  it("pipes stdin and half-closes it at its end: cat of 8 MiB comes back whole and exits", async () => {
    const data = randomBytes(8 * 1024 * 1024);
    const input = Readable.from((function* () {
      for (let i = 0; i < data.length; i += 100_000) yield data.subarray(i, i + 100_000);
    })());
    const out = await runtime.execStream(box, ["/bin/busybox", "cat"], { stdin: input });
    const body = await digest(out.stdout);
    expect(body).toEqual({ bytes: data.length, sha256: createHash("sha256").update(data).digest("hex") });
    expect(await out.done).toEqual({ exitCode: 0, stderrTail: "" });
  });

  it("an input that fails half way: the process sees EOF and done rejects with the input's error", async () => {
    const input = new Readable({ read() {} });
    const out = await runtime.execStream(box, ["/bin/busybox", "wc", "-c"], { stdin: input });
    input.push(Buffer.alloc(300_000, 1));
    setTimeout(() => input.destroy(new Error("the download broke off")), 200);
    const text = Buffer.concat(await out.stdout.toArray()).toString();
    await expect(out.done).rejects.toThrow("the download broke off");
    expect(text.trim()).toBe("300000"); // what arrived, then EOF: wc counted and exited
  });

  it("a slow reader holds the process back instead of the panel buffering its output", async () => {
    const MiB = 1024 * 1024;
    const total = 160 * MiB;
    const dd = (bytes: number) => runtime.execStream(box, ["/bin/busybox", "dd", "if=/dev/zero", "bs=65536", `count=${bytes / 65536}`], {});
    // Warm up first (socket buffers, the Buffer pool, JIT): the first MiBs through any stream cost the same whatever their size.
    const warm = await dd(32 * MiB);
    await digest(warm.stdout);
    await warm.done;
    const out = await dd(total);
    const before = process.memoryUsage().rss;
    let peak = before;
    let bytes = 0;
    let buffered = 0; // the most the stream ever held for its reader
    const t0 = performance.now();
    await pipeline(
      out.stdout,
      new Writable({
        highWaterMark: 16 * 1024,
        write(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          peak = Math.max(peak, process.memoryUsage().rss);
          buffered = Math.max(buffered, out.stdout.readableLength);
          setTimeout(done, bytes % (512 * 1024) < chunk.length ? 5 : 0); // slower than the engine by far
        },
      }),
    );
    const growth = (peak - before) / MiB;
    expect((await out.done).exitCode).toBe(0);
    expect(bytes).toBe(total);
    console.log(`execStream slow reader: ${total / MiB} MiB in ${((performance.now() - t0) / 1000).toFixed(1)}s, rss growth ${growth.toFixed(1)} MiB, at most ${(buffered / 1024).toFixed(0)} KiB waiting in the stream`);
    // Unbounded buffering would hold nearly all of it (the engine writes far faster than this
    // reader: without the pause, 117 MiB of growth and 143 MiB waiting were measured); what remains is mostly the V8 young
    // generation growing under the allocation rate, whatever the size.
    expect(growth).toBeLessThan(60);
    expect(buffered).toBeLessThanOrEqual(256 * 1024);
  });

  it("a reader that gives up: done rejects at once, saying the process may run on (the engine does not stop it)", async () => {
    const out = await runtime.execStream(box, ["/bin/busybox", "dd", "if=/dev/zero", "bs=65536", "count=800"], {});
    for await (const _chunk of out.stdout) break; // destroys the stream
    await expect(out.done).rejects.toThrow("abandoned before its end");
  });
});

describe("volumes", () => {
  it("creates, finds by label, answers an existing name as it is, and removes (a missing one too)", async () => {
    const name = `${run}-vol`;
    expect(await runtime.inspectVolume(name)).toBeNull();
    expect(await runtime.createVolume(name, { ...LABELS, "levelrail.database": "db1" })).toEqual({ name, labels: { ...LABELS, "levelrail.database": "db1" } });
    // a second create with other labels: the engine keeps the volume as it was
    expect((await runtime.createVolume(name, { other: "x" })).labels).toEqual({ ...LABELS, "levelrail.database": "db1" });
    expect(await runtime.inspectVolume(name)).toEqual({ name, labels: { ...LABELS, "levelrail.database": "db1" } });
    expect((await runtime.listVolumes([`levelrail.test.run=${run}`, "levelrail.database=db1"])).map((v) => v.name)).toEqual([name]);
    expect(await runtime.listVolumes([`levelrail.test.run=${run}`, "levelrail.database=db2"])).toEqual([]);
    await runtime.removeVolume(name);
    await runtime.removeVolume(name);
    expect(await runtime.inspectVolume(name)).toBeNull();
  });

  it("refuses to remove a volume a container mounts", async () => {
    const name = `${run}-used`;
    await runtime.createVolume(name, LABELS);
    const c = await docker.createContainer({ name: `${run}-user`, Image: POSTGRES_TEST_IMAGE, Cmd: ["/bin/busybox", "true"], Labels: LABELS, HostConfig: { Binds: [`${name}:/data`] } });
    try {
      await expect(runtime.removeVolume(name)).rejects.toMatchObject({ statusCode: 409 });
    } finally {
      await c.remove({ force: true });
    }
    await runtime.removeVolume(name);
  });
});

describe("connectNetwork", () => {
  it("joins a running container under its aliases, and a second join is fine", async () => {
    const net = `${run}-net`;
    await docker.createNetwork({ Name: net, Labels: LABELS });
    await runtime.connectNetwork(net, box, ["shop-db"]);
    await runtime.connectNetwork(net, box, ["shop-db"]);
    const info = await docker.getContainer(box).inspect();
    expect(info.NetworkSettings.Networks[net]?.Aliases).toContain("shop-db");
    await runtime.disconnectNetwork(net, box);
    await expect(runtime.connectNetwork(`${run}-nonet`, box, [])).rejects.toMatchObject({ statusCode: 404 });
  });
});
