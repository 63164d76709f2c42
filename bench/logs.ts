/**
 * How late a followed log line reaches the client, across deploys, measured in one run on one engine.
 *
 * A service whose container prints a numbered line every 100 ms is followed over HTTP on loopback
 * (`GET …/logs?follow=true` with a bearer token) while it is deployed 10 times (blue-green,
 * alternating two images). The panel is the built web app under `next start` (apps/web/.next, as
 * `npm start` or `npm test` built it; this does not build); without a build, the route's own code
 * (`serviceLogs`) served by node:http, which it says. A line's delay is from the time the engine
 * stamped it (when it left the container's stdout) to the client reading its event.
 *
 * live:     lines printed while their container was the followed one (the figure: `log delay p95`).
 * backfill: a new container's lines printed while it was getting ready, sent after the switch by
 *           design (their delay is the readiness time, reported apart).
 * baseline: the same container's lines read straight from the engine (no panel), for 5 s.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { createApiToken } from "@levelrail/auth";
import { dockerLogReader } from "@levelrail/docker/logs";
import { createApp } from "@levelrail/services/app/app";
import { deployService } from "@levelrail/services/release/deploy";
import { createService } from "@levelrail/services/service/write";
import { ensureTestImage } from "@levelrail/testkit/images";
import { percentile } from "@levelrail/testkit/load";
import { freePort } from "@levelrail/testkit/registry";
import { waitFor } from "@levelrail/testkit/wait";
import { setupSuite } from "@levelrail/worker/harness";
import { MAX_TAIL_BYTES, StreamSlots } from "../apps/web/lib/logs/caps";
import { serviceLogs } from "../apps/web/lib/logs/service-logs";
import { numberedImage, readEvents } from "../apps/web/lib/logs/testing";

const DEPLOYS = Number(process.env.BENCH_LOG_DEPLOYS ?? 10);
const images = [numberedImage("a"), numberedImage("b")];
/** The engine's time (nine fraction digits) in ms since epoch. */
const ms = (at: string) => Date.parse(`${at.slice(0, 23)}Z`);
const fmt = (n: number) => `${n.toFixed(0)} ms`;

const s = await setupSuite("bench_logs");
const { ctx } = s;
const reader = dockerLogReader({ dockerHost: process.env.DOCKER_HOST });
const port = await freePort();
const webDir = fileURLToPath(new URL("../apps/web", import.meta.url));
const built = existsSync(join(webDir, ".next", "BUILD_ID"));
const dataDir = mkdtempSync(join(tmpdir(), "levelrail-logs-bench-"));
let next: ChildProcess | null = null;
const inProcess = createServer((req, res) => {
  const abort = new AbortController();
  res.on("close", () => abort.abort());
  serviceLogs({ ctx, envId: ctx.envId, name: "bench-logs", reader, caps: { tailBytes: MAX_TAIL_BYTES, slots: new StreamSlots({ perUser: 1000, total: 1000, retryAfterSeconds: 5 }) }, req: new Request(`http://127.0.0.1${req.url ?? "/"}`, { signal: abort.signal }) })
    .then((r) => {
      res.writeHead(r.status, Object.fromEntries(r.headers));
      if (r.body) Readable.fromWeb(r.body as NodeReadableStream<Uint8Array>).pipe(res);
      else res.end();
    })
    .catch((err: unknown) => {
      res.writeHead(500).end(String(err));
    });
});
if (built) {
  next = spawn(process.execPath, [fileURLToPath(new URL("../node_modules/next/dist/bin/next", import.meta.url)), "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: webDir,
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: s.databaseUrl,
      LEVELRAIL_MASTER_KEY: s.kit.masterKey,
      LEVELRAIL_DATA_DIR: dataDir,
      LEVELRAIL_SHORT_NAME: s.shortName,
      PORT: String(port),
      LEVELRAIL_PUBLIC_URL: `http://127.0.0.1:${port}`,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  await waitFor("next start to answer", async () => ((await fetch(`http://127.0.0.1:${port}/login`).catch(() => null))?.ok ? true : undefined), { timeoutMs: 90_000, intervalMs: 250 });
} else {
  await new Promise<void>((resolve) => inProcess.listen(port, "127.0.0.1", resolve));
}
console.log(built ? "through the built web app (next start)" : "apps/web is not built: through the route's code on node:http (no Next)");
const token = await createApiToken(s.db, ctx.actor.email, "bench-logs");
const logsUrl = built ? `http://127.0.0.1:${port}/api/v1/environments/${ctx.envId}/services/bench-logs/logs` : `http://127.0.0.1:${port}/logs`;

try {
  for (const img of images) await ensureTestImage(s.runtime.docker, img);
  await s.startWorker({ drainMs: 1000, probeIntervalMs: 100 });
  await createApp({ ctx, envId: ctx.envId, input: { name: "bench" } });
  await createService({ ctx, envId: ctx.envId, input: { name: "bench-logs", app: "bench", image: images[0]!.tag, port: 8080, healthPath: "/healthz" } });
  const first = await deployService({ ctx, envId: ctx.envId, name: "bench-logs", input: {} });
  await s.waitRelease("bench-logs", first.id);

  // Baseline: the active container's lines straight from the engine.
  const [active] = (await s.containers("bench-logs")).filter((c) => c.state === "running");
  const baseline: number[] = [];
  const stopBaseline = new AbortController();
  setTimeout(() => stopBaseline.abort(), 5000);
  for await (const l of reader.lines(active!.id, { follow: true, tail: 0, signal: stopBaseline.signal })) baseline.push(Date.now() - ms(l.at));

  const res = await fetch(`${logsUrl}?follow=true&tail=0`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET logs answered ${res.status}: ${await res.text()}`);
  const stream = readEvents(res);
  let done = false;
  const reading = stream.until(() => done, 30 * 60_000);
  for (let i = 0; i < DEPLOYS; i++) {
    const rel = await deployService({ ctx, envId: ctx.envId, name: "bench-logs", input: { image: images[(i + 1) % 2]!.tag } });
    await s.waitRelease("bench-logs", rel.id, { intervalMs: 20 });
  }
  await new Promise((r) => setTimeout(r, 2000));
  done = true;
  await reading;
  await stream.close();

  const live: number[] = [];
  const backfill: number[] = [];
  let switchedAt = "";
  let markers = 0;
  for (const e of stream.events) {
    if (e.event === "marker") {
      markers++;
      switchedAt = String(e.data.at);
    } else if (e.event === "line") {
      const at = String(e.data.at);
      (at >= switchedAt ? live : backfill).push(e.receivedAt - ms(at));
    }
  }
  console.log(`deploys: ${DEPLOYS}, switch markers seen: ${markers}, lines: ${live.length} live + ${backfill.length} backfill`);
  console.log(`baseline (engine direct) p50 ${fmt(percentile(baseline, 50))}, p95 ${fmt(percentile(baseline, 95))} over ${baseline.length} lines`);
  console.log(`live lines p50 ${fmt(percentile(live, 50))}, p95 ${fmt(percentile(live, 95))}, max ${fmt(Math.max(...live))}`);
  console.log(`backfill (printed while getting ready) p95 ${fmt(percentile(backfill, 95))}`);
  const p95 = percentile(live, 95);
  console.log(`log delay p95: ${p95.toFixed(0)} (${(p95 / Math.max(1, percentile(baseline, 95))).toFixed(1)}x the engine's own; target under 2000)`);
  if (markers !== DEPLOYS) throw new Error(`expected ${DEPLOYS} switch markers, saw ${markers}`);
} finally {
  inProcess.close();
  next?.kill("SIGTERM");
  await s.teardown();
  rmSync(dataDir, { recursive: true, force: true });
}
