import { randomBytes } from "node:crypto";
import { ExecStoppedError, dockerRuntime } from "@levelrail/docker";
import { ensureTestImage } from "@levelrail/testkit/images";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseCredentials } from "../ports";
import { postgresEngine } from "./postgres";

// The clients the worker runs in a database's container are the tenant image's: this image's
// pg_isready never exits, another's prints without end, and its psql prints without end. Against
// the real engine: each is stopped at its deadline or its output cap, the worker's memory stays
// flat, and the process itself is killed (nothing of it is left in the container).
const runtime = dockerRuntime({ dockerHost: process.env.DOCKER_HOST });
const { docker } = runtime;
const short = process.env.LEVELRAIL_SHORT_NAME ?? "lrtest";
const run = `${short}-tenantcli-${randomBytes(3).toString("hex")}`;
const creds: DatabaseCredentials = { user: "shop", password: "pw-not-used", database: "shop" };
const script = (body: string) => ({ content: `#!/bin/sh\n${body}\n`, mode: 0o755 });
/** pg_isready sleeps (100001 s, told apart from the container's own 100000 s); psql prints `yes` without end. */
const STUCK = {
  tag: "levelrail-test/pg-stuck-clients:v1",
  body: "stuck\n",
  healthy: false,
  cmd: ["/bin/busybox", "sleep", "100000"],
  files: { "bin/pg_isready": script("exec /bin/busybox sleep 100001"), "bin/psql": script("exec /bin/busybox yes levelrail-psql-without-end") },
} as const;
/** pg_isready prints without end; psql never answers (sleeps). */
const CHATTY = {
  ...STUCK,
  tag: "levelrail-test/pg-chatty-isready:v2",
  files: { "bin/pg_isready": script("exec /bin/busybox yes levelrail-isready-without-end"), "bin/psql": script("exec /bin/busybox sleep 100002") },
} as const;
const made: string[] = [];

/** A container of `image`, named for the test (and the attempt: CI retries a failed test once). */
async function start(image: string, name: string): Promise<string> {
  const c = await docker.createContainer({ name: `${run}-${name}-${made.length}`, Image: image, Labels: { "levelrail.test": "true", "levelrail.test.run": run } });
  made.push(c.id);
  await c.start();
  return c.id;
}

/** The container's processes (the engine's `top`): their command lines. */
async function processes(id: string): Promise<string[]> {
  const top = (await docker.getContainer(id).top({ ps_args: "-o pid,args" })) as { Titles: string[]; Processes: string[][] };
  const at = top.Titles.findIndex((t) => /CMD|COMMAND|ARGS/i.test(t));
  return top.Processes.map((p) => p[at] ?? p.join(" "));
}

async function settled(id: string, gone: RegExp): Promise<string[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const ps = await processes(id);
    if (!ps.some((p) => gone.test(p)) || Date.now() > deadline) return ps;
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  await ensureTestImage(docker, STUCK);
  await ensureTestImage(docker, CHATTY);
}, 120_000);

afterAll(async () => {
  for (const id of made) await runtime.removeContainer(id).catch(() => {});
});

describe("clients of a tenant's image", () => {
  it("stops a pg_isready that never exits at its deadline and kills its process", async () => {
    const id = await start(STUCK.tag, "stuck");
    const engine = postgresEngine(runtime);
    const started = Date.now();
    const err = await engine.ready(id, creds, AbortSignal.timeout(1_000)).then(() => null, (e: unknown) => e);
    const tookMs = Date.now() - started;
    console.log(`[tenant-clients] stuck pg_isready stopped after ${tookMs} ms`);
    expect(err).toBeInstanceOf(ExecStoppedError);
    expect((err as ExecStoppedError).message).toBe("pg_isready was stopped: its deadline passed");
    expect((err as ExecStoppedError).killed).toBe(true);
    expect(tookMs).toBeLessThan(3_000);
    const ps = await settled(id, /sleep 100001/);
    expect(ps.filter((p) => /sleep 100001/.test(p))).toEqual([]);
    expect(ps.some((p) => /sleep 100000/.test(p))).toBe(true); // the container itself runs on
  });

  it("stops a pg_isready that prints without end at its output cap", async () => {
    const id = await start(CHATTY.tag, "chatty");
    const engine = postgresEngine(runtime, { maxProbeBytes: 256 * 1024 });
    const err = await engine.ready(id, creds, AbortSignal.timeout(30_000)).then(() => null, (e: unknown) => e);
    expect((err as Error).message).toBe("pg_isready was stopped: pg_isready printed more than 262144 bytes; its output was truncated");
    expect((await settled(id, /yes levelrail-isready/)).filter((p) => /yes/.test(p))).toEqual([]);
  });

  it("stops a psql that prints without end at its answer cap: the worker's memory stays flat", async () => {
    const id = await start(STUCK.tag, "psql");
    const engine = postgresEngine(runtime); // the default cap, 16 MiB
    const rssBefore = process.memoryUsage().rss;
    const started = Date.now();
    const err = await engine.inventory(id, creds).then(() => null, (e: unknown) => e);
    const grewMiB = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
    console.log(`[tenant-clients] endless psql stopped after ${Date.now() - started} ms; the worker's rss grew ${grewMiB.toFixed(1)} MiB`);
    expect((err as Error).message).toBe("psql was stopped: psql printed more than 16 MiB without ending its answer; the output was truncated");
    expect(grewMiB).toBeLessThan(120);
    expect((await settled(id, /yes levelrail-psql/)).filter((p) => /yes/.test(p))).toEqual([]);
  });

  it("stops a psql that never answers at its deadline", async () => {
    const id = await start(CHATTY.tag, "silent");
    const engine = postgresEngine(runtime, { answerMs: 1_000 });
    const err = await engine.inventory(id, creds).then(() => null, (e: unknown) => e);
    expect((err as Error).message).toBe("psql was stopped: psql gave no answer within 1 s");
    expect((await settled(id, /sleep 100002/)).filter((p) => /sleep 100002/.test(p))).toEqual([]);
  });
});
