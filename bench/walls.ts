/**
 * What a hostile request costs the web app, measured in one run with baselines from the same run:
 *
 * nul check 4 MiB nested: the body handling every route does (`parseJsonBody`: depth scan, parse,
 *   NUL walk) over a 4 MiB body of arrays nested 2 million deep (refused with a 400). Baseline: the
 *   old recursive, path-copying walk over 120 KB nested 3,000 deep (it overflowed the stack deeper),
 *   and the new one over a 4 MiB body an honest client could send (wide, nested to the limit).
 * log tail 10000 rss growth: the peak RSS growth of one `?tail=10000` answer whose container printed
 *   16 KiB lines (`tailResponse` over lines built like the engine reader's), the body read whole by
 *   the client, in a child process of its own. Baseline: the same lines collected uncapped (before).
 *
 * image check per deploy p50: what the image wall adds to a deploy whose image the engine has
 *   (`cachedImageAccess`: the image's labels and RepoDigests read, and for an image pulled from a
 *   registry the registry asked whether this service's login may pull it), on the real engine: an
 *   image built on the host, and a private image on a loopback registry (Debian's docker-registry),
 *   with the registry's yes kept a minute as the worker keeps it (`RegistryConfirmations`: a deploy
 *   soon after another asks no registry) and asked every time. Skipped when no engine answers.
 *
 * Needs nothing running but, for the image figure, a Docker engine (`DOCKER_HOST`):
 * `npm run bench -- walls`, or `node --import tsx bench/walls.ts`.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MAX_TAIL_BYTES } from "../apps/web/lib/logs/caps";
import type { LogEvent, LogLineEvent } from "../apps/web/lib/logs/follow";
import { tailResponse } from "../apps/web/lib/logs/service-logs";
import { MAX_DEPTH, nulPath, parseJsonBody } from "../apps/web/lib/request-body";
import { RegistryConfirmations, cachedImageAccess } from "../apps/worker/src/controllers/application/image";
import { dockerRuntime } from "@levelrail/docker";
import { ensureTestImage } from "@levelrail/testkit/images";
import { startRegistry } from "@levelrail/testkit/registry";

const MiB = 1024 * 1024;
const LINES = 10_000;
const LINE_BYTES = 16 * 1024;

/** The walk before: recursive, a copy of the path at every level. */
function oldNulPath(value: unknown, path: string[] = []): string | null {
  if (typeof value === "string") return value.includes("\0") ? path.join(".") || "body" : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = oldNulPath(value[i], [...path, String(i)]);
      if (p !== null) return p;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes("\0")) return [...path, k].join(".");
      const p = oldNulPath(v, [...path, k]);
      if (p !== null) return p;
    }
  }
  return null;
}

function timed(f: () => unknown, runs = 5): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    try {
      f();
    } catch {
      // a refusal is the outcome measured
    }
    times.push(performance.now() - t);
  }
  return times.sort((x, y) => x - y)[Math.floor(runs / 2)]!;
}

/** `depth` arrays in one another around a string; `width` copies at the bottom, to reach a size. */
const nestedText = (depth: number, inner: string) => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;

function nulFigures(): void {
  const bytes = (t: string) => new TextEncoder().encode(t);
  const hostile = bytes(nestedText(2 * MiB, ""));
  const ms = timed(() => parseJsonBody(hostile));
  let refused = "";
  try {
    parseJsonBody(hostile);
  } catch (err) {
    refused = err instanceof Error ? err.message : String(err);
  }
  const before = JSON.parse(nestedText(3000, '"x"')) as unknown;
  const oldMs = timed(() => oldNulPath(before), 3);
  const oldNewMs = timed(() => nulPath(before, [], Infinity), 3);
  // An honest 4 MiB body: objects of strings, nested to the limit.
  const leaf = JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({ key: `k${i}`, value: "v".repeat(40) })));
  const copies = Math.floor((4 * MiB) / (leaf.length + 1) / 1.05);
  const wide = bytes(nestedText(MAX_DEPTH - 3, Array.from({ length: copies }, () => leaf).join(",")));
  const wideMs = timed(() => parseJsonBody(wide), 3);
  const parsedWide = parseJsonBody(wide);
  const walkMs = timed(() => nulPath(parsedWide), 3);
  console.log(`nul check 4 MiB nested: ${ms.toFixed(1)} ms (${(hostile.byteLength / MiB).toFixed(1)} MiB, 2,097,152 levels: "${refused}")`);
  console.log(`  before, 120 KB nested 3,000 deep: ${oldMs.toFixed(0)} ms recursive (now ${oldNewMs.toFixed(1)} ms; ratio ${(oldMs / Math.max(oldNewMs, 0.01)).toFixed(0)}x)`);
  console.log(`  an honest ${(wide.byteLength / MiB).toFixed(1)} MiB body nested ${MAX_DEPTH - 1} deep: ${wideMs.toFixed(0)} ms in all, of which the NUL walk ${walkMs.toFixed(1)} ms`);
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The access check a deploy makes for an image the engine has, timed on the real engine. */
async function imageFigures(rounds = 50): Promise<void> {
  const runtime = dockerRuntime({ dockerHost: process.env.DOCKER_HOST });
  try {
    await runtime.ping();
  } catch {
    console.log("image check per deploy p50: skipped (no Docker engine answers)");
    return;
  }
  const run = Math.random().toString(16).slice(2, 8);
  const hostTag = `levelrail-bench/walls-${run}:v1`;
  await ensureTestImage(runtime.docker, { tag: hostTag, body: "bench\n", healthy: true });
  const registry = await startRegistry();
  const auth = { username: registry.username, password: registry.password, serveraddress: registry.server };
  const ref = `${registry.server}/bench/walls-${run}:v1`;
  try {
    await runtime.docker.getImage(hostTag).tag({ repo: ref.slice(0, ref.lastIndexOf(":")), tag: "v1" });
    const push = await runtime.docker.getImage(ref).push({ authconfig: auth });
    await new Promise<void>((resolve, reject) =>
      runtime.docker.modem.followProgress(push, (err: Error | null, out: { error?: string }[]) => (err || out.some((o) => o.error) ? reject(err ?? new Error("push failed")) : resolve())),
    );
    await runtime.docker.getImage(ref).remove();
    await runtime.pullImage(ref, auth, () => {});
    const measure = async (name: string, login: typeof auth | null, cached: boolean) => {
      const owner = { shortName: "lrbench", orgId: "org-bench", orgOfService: async () => "org-bench", ...(cached ? { confirmations: new RegistryConfirmations() } : {}) };
      const id = (await runtime.imageId(name))!;
      const times: number[] = [];
      for (let i = 0; i < rounds + 5; i++) {
        const t = performance.now();
        const access = await cachedImageAccess(runtime, name, id, login, owner);
        if (access.kind !== "ok") throw new Error(`the check refused ${name}: ${JSON.stringify(access)}`);
        if (i >= 5) times.push(performance.now() - t);
      }
      return p50(times);
    };
    const host = await measure(hostTag, null, true);
    const pulled = await measure(ref, auth, true);
    const asked = await measure(ref, auth, false);
    console.log(`image check per deploy p50: ${pulled.toFixed(1)} ms (a private image pulled from a registry, the registry's yes kept; ${rounds} checks)`);
    console.log(`  an image built on the host: ${host.toFixed(1)} ms; the registry asked every time (loopback): ${asked.toFixed(1)} ms`);
  } finally {
    await registry.stop();
    for (const t of [ref, hostTag]) await runtime.docker.getImage(t).remove({ force: true }).catch(() => undefined);
  }
}

/** Lines as the engine reader makes them: a fresh string decoded from bytes each. */
async function* lines(): AsyncGenerator<LogEvent> {
  for (let i = 1; i <= LINES; i++) {
    const buf = Buffer.alloc(LINE_BYTES, 0x78);
    buf.write(`${i} `, 0, "latin1");
    const e: LogLineEvent = { type: "line", container: "lrbench-web-0123456789ab", stream: "stdout", at: `2026-01-01T00:00:00.${String(i).padStart(9, "0")}Z`, line: buf.toString("utf8") };
    yield e;
  }
}

/** The body's bytes, read the way a remote client's socket takes them (chunk by chunk). */
async function drain(res: Response): Promise<number> {
  let n = 0;
  if (res.body) for await (const chunk of res.body) n += chunk.byteLength;
  return n;
}

/** In a child: the peak RSS growth (MiB) of one answer, capped or not, its body read whole. */
async function child(mode: "capped" | "uncapped"): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  // Warm up the code paths (and the allocator) on a small run first.
  await drain(await tailResponse(lines(), 64 * 1024));
  gc?.();
  const start = process.memoryUsage().rss;
  let bodyBytes = 0;
  if (mode === "capped") {
    bodyBytes = await drain(await tailResponse(lines(), MAX_TAIL_BYTES));
  } else {
    const all: LogLineEvent[] = [];
    for await (const e of lines()) if (e.type === "line") all.push(e);
    bodyBytes = await drain(Response.json(all.map(({ type: _t, ...l }) => l)));
  }
  const peak = process.resourceUsage().maxRSS * 1024;
  console.log(JSON.stringify({ growthMiB: Math.max(0, peak - start) / MiB, bodyMiB: bodyBytes / MiB }));
}

function inChild(mode: "capped" | "uncapped"): { growthMiB: number; bodyMiB: number } {
  const r = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", fileURLToPath(import.meta.url), "--child", mode], { encoding: "utf8", maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`the ${mode} child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { growthMiB: number; bodyMiB: number };
}

const at = process.argv.indexOf("--child");
if (at >= 0) {
  await child(process.argv[at + 1] === "uncapped" ? "uncapped" : "capped");
} else {
  nulFigures();
  const capped = inChild("capped");
  const uncapped = inChild("uncapped");
  console.log(`log tail 10000 rss growth: ${capped.growthMiB.toFixed(1)} MiB (${LINES} lines of 16 KiB; a ${capped.bodyMiB.toFixed(1)} MiB answer, cap ${MAX_TAIL_BYTES / MiB} MiB)`);
  console.log(`  before, uncapped: ${uncapped.growthMiB.toFixed(1)} MiB for a ${uncapped.bodyMiB.toFixed(1)} MiB answer (ratio ${(uncapped.growthMiB / Math.max(capped.growthMiB, 0.1)).toFixed(1)}x)`);
  await imageFigures();
}
