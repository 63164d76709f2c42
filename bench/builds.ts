/**
 * Builds from git (issue 25), through the product, in one run: a git server on loopback (git
 * http-backend, a token required), the worker in this process building with the engine's BuildKit.
 *
 * - `build cached: <ms>`: a build of a commit already built (no deploy), from the request to
 *   `succeeded` (ls-remote, shallow fetch, BuildKit all cached), median of 5; against the same
 *   BuildKit build of the same context straight through dockerode (the baseline, no git, no queue).
 * - `push to live p50: <ms>`: a commit pushed and its GitHub push event, signed with the source's
 *   secret, handed to the webhook's verb (what `POST /api/v1/hooks/git/{sourceId}` calls), until the
 *   service's running container answers the new page; 5 rounds.
 * - `build worker rss growth: <MiB>`: this process's (the worker's) peak RSS during those builds
 *   minus just before them, after one warm-up build.
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { dockerImageBuilder } from "@levelrail/docker/build";
import { build, gitCredential, gitSource } from "@levelrail/db/schema/git";
import { createApp } from "@levelrail/services/app/app";
import { requestBuild } from "@levelrail/services/build/request";
import { receiveGitHook } from "@levelrail/services/git-hook/receive";
import { createService } from "@levelrail/services/service/write";
import { Labels, networkName } from "@levelrail/spec/naming";
import { startGitServer } from "@levelrail/testkit/git";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "@levelrail/worker/harness";

const ROUNDS = 5;
const s = await setupSuite("benchbuilds");
const token = `tok-${randomBytes(12).toString("hex")}`;
const git = await startGitServer({ token });
const repo = await git.repo("bench");
const workDir = mkdtempSync(join(tmpdir(), "levelrail-bench-builds-"));
const NAME = "web";
const page = (body: string) => ({ Dockerfile: `FROM ${IMAGES.v1.tag}\nCOPY www /www\n`, "www/index.html": body, "www/healthz": "ok\n" });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const MiB = 1024 * 1024;

try {
  const appId = (await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } })).id;
  const serviceId = (await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: NAME, app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } })).id;
  const [cred] = await s.db.insert(gitCredential).values({ orgId: s.ctx.orgId, name: "bench", kind: "token", username: "x", hosts: ["127.0.0.1"], sealed: s.kit.keyring.seal(token) }).returning();
  const secret = randomBytes(32).toString("hex");
  const [src] = await s.db.insert(gitSource).values({ orgId: s.ctx.orgId, serviceId, url: repo.url, ref: "main", credentialId: cred!.id, webhookSecretSealed: s.kit.keyring.seal(secret) }).returning();
  /** A GitHub push of `commit` to main, signed with the source's secret, through the webhook's verb. */
  const push = async (commit: string) => {
    const body = Buffer.from(JSON.stringify({ ref: "refs/heads/main", before: "0".repeat(40), after: commit, deleted: false, repository: { clone_url: repo.url }, head_commit: { id: commit } }));
    const headers = new Headers({ "content-type": "application/json", "x-github-event": "push", "x-github-delivery": randomUUID(), "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}` });
    const answer = await receiveGitHook({ db: s.db, kit: s.kit }, { sourceId: src!.id, headers, body });
    if (answer.status !== 202) throw new Error(`the webhook answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  };
  await s.startWorker({ builds: { builder: dockerImageBuilder(s.runtime.docker), fingerprintKey: s.kit.fingerprintKey, workDir } });

  const finished = (id: string) =>
    waitFor(`build ${id}`, async () => {
      const [b] = await s.db.select().from(build).where(eq(build.id, id));
      if (b?.status === "failed" || b?.status === "cancelled") throw new Error(`build ${b.status}: ${b.message}`);
      return b?.status === "succeeded" ? b : undefined;
    }, { timeoutMs: 300_000, intervalMs: 20 });
  const serving = async () => {
    const [c] = (await s.containers(NAME)).filter((x) => x.state === "running");
    return c ? s.body(c.id, networkName(s.shortName, appId)).catch(() => "") : "";
  };

  // Warm-up: the first build and deploy (loads what any first build loads).
  await repo.commit(page("warm\n"));
  await finished((await requestBuild({ ctx: s.ctx, envId: s.ctx.envId, name: NAME, input: {} })).id);
  await waitFor("warm page", async () => ((await serving()) === "warm\n" ? true : undefined), { timeoutMs: 120_000 });

  let peak = process.memoryUsage().rss;
  const before = peak;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);

  const cached: number[] = [];
  const waits: number[] = [];
  const runs: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    const b = await finished((await requestBuild({ ctx: s.ctx, envId: s.ctx.envId, name: NAME, input: { deploy: false } })).id);
    cached.push(performance.now() - t0);
    waits.push(b.startedAt!.getTime() - b.createdAt.getTime());
    runs.push(b.finishedAt!.getTime() - b.startedAt!.getTime());
  }
  // Baseline: the same context built straight through dockerode's BuildKit (all cached too).
  const ctxDir = mkdtempSync(join(tmpdir(), "levelrail-bench-ctx-"));
  mkdirSync(join(ctxDir, "www"));
  for (const [p, body] of Object.entries(page("warm\n"))) writeFileSync(join(ctxDir, p), body);
  const builder = dockerImageBuilder(s.runtime.docker);
  const baseline: number[] = [];
  const tag = `${s.shortName}/bench-baseline:1`;
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    const r = await builder.build({ contextDir: ctxDir, dockerfile: "Dockerfile", target: null, buildArgs: {}, cacheNamespace: `${s.shortName}-bench-baseline`, labels: { [Labels.instance]: s.shortName }, tag }, () => {}, new AbortController().signal);
    if (!r.ok) throw new Error(r.message);
    baseline.push(performance.now() - t0);
  }
  rmSync(ctxDir, { recursive: true, force: true });

  const live: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const body = `round ${i} ${randomBytes(4).toString("hex")}\n`;
    const commit = await repo.commit(page(body));
    const t0 = performance.now();
    await push(commit);
    await waitFor(`round ${i} live`, async () => ((await serving()) === body ? true : undefined), { timeoutMs: 300_000, intervalMs: 20 });
    live.push(performance.now() - t0);
  }
  clearInterval(sampler);

  const c = median(cached);
  const b = median(baseline);
  console.log(`build cached: ${c.toFixed(0)} ms (runs ${cached.map((x) => x.toFixed(0)).join(", ")}); BuildKit alone ${b.toFixed(0)} ms; ratio ${(c / b).toFixed(2)}`);
  console.log(`  of which queued (request to start) ${median(waits).toFixed(0)} ms, running (ls-remote, fetch, BuildKit) ${median(runs).toFixed(0)} ms`);
  console.log(`push to live p50: ${median(live).toFixed(0)} ms (runs ${live.map((x) => x.toFixed(0)).join(", ")}; a signed GitHub push through the webhook's verb)`);
  console.log(`build worker rss growth: ${((peak - before) / MiB).toFixed(1)} MiB (before ${(before / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB, ${ROUNDS * 2} builds)`);
} finally {
  await s.teardown();
  await git.close();
  rmSync(workDir, { recursive: true, force: true });
  const images = await s.runtime.docker.listImages({ filters: { label: [`${Labels.instance}=${s.shortName}`] } });
  for (const i of images) await s.runtime.docker.getImage(i.Id).remove({ force: true }).catch(() => undefined);
}
