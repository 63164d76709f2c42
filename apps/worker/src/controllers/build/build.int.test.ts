import { execFile } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dockerImageBuilder } from "@levelrail/docker/build";
import { notifyDesired } from "@levelrail/db/notify";
import { pulledImage } from "@levelrail/db/schema/fleet";
import { build, buildLog, gitCredential, gitSource } from "@levelrail/db/schema/git";
import { release } from "@levelrail/db/schema/services";
import { createApp } from "@levelrail/services/app/app";
import { enqueueBuild } from "@levelrail/services/build/enqueue";
import { cancelBuild, requestBuild } from "@levelrail/services/build/request";
import { getBuild, listBuilds } from "@levelrail/services/build/view";
import { seedOrg } from "@levelrail/testkit/seed";
import { createEnvironment } from "@levelrail/services/project/environment";
import { promoteService } from "@levelrail/services/release/deploy";
import { getStatus } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { buildKey } from "@levelrail/spec/keys";
import { Labels, builtImageName, networkName } from "@levelrail/spec/naming";
import { type GitServer, type TestRepo, startGitServer } from "@levelrail/testkit/git";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "../../../test/harness";

const run = promisify(execFile);

/**
 * Issue 25 on real parts: a git server on loopback (git http-backend, a token required), the real
 * engine's BuildKit, PostgreSQL and the worker. A push builds and deploys; a second build is cached;
 * a failing step names itself and the old container keeps serving; cancel and the deadline stop the
 * build on the engine; the token never shows.
 */
let s: Awaited<ReturnType<typeof setupSuite>>;
let git: GitServer;
let repo: TestRepo;
let appId: string;
let serviceId: string;
let sourceId: string;
const TOKEN = `tok-${randomBytes(16).toString("hex")}`;
const NAME = "web";
const DEADLINE_SECONDS = 25;
const workDir = mkdtempSync(join(tmpdir(), "lrbd-builds-"));

const page = (body: string) => ({
  Dockerfile: `FROM ${IMAGES.v1.tag}\nCOPY www /www\n`,
  "www/index.html": body,
  "www/healthz": "ok\n",
});

beforeAll(async () => {
  s = await setupSuite("builds");
  git = await startGitServer({ token: TOKEN });
  repo = await git.repo(`shop-${s.shortName}`);
  appId = (await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } })).id;
  serviceId = (await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: NAME, app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } })).id;
  const [cred] = await s.db.insert(gitCredential).values({ orgId: s.ctx.orgId, name: "ci", kind: "token", username: "x-access-token", hosts: ["127.0.0.1"], sealed: s.kit.keyring.seal(TOKEN) }).returning();
  const [src] = await s.db
    .insert(gitSource)
    .values({ orgId: s.ctx.orgId, serviceId, url: repo.url, ref: "main", credentialId: cred!.id, webhookSecretSealed: s.kit.keyring.seal("hook") })
    .returning();
  sourceId = src!.id;
  await s.startWorker({ builds: { builder: dockerImageBuilder(s.runtime.docker), fingerprintKey: s.kit.fingerprintKey, timeoutSeconds: DEADLINE_SECONDS, workDir, pollTickMs: 500 } });
}, 180_000);

afterAll(async () => {
  await s?.teardown();
  await git?.close();
  rmSync(workDir, { recursive: true, force: true });
  const images = await s?.runtime.docker.listImages({ filters: { label: [`${Labels.instance}=${s.shortName}`] } });
  for (const i of images ?? []) await s.runtime.docker.getImage(i.Id).remove({ force: true }).catch(() => undefined);
});

async function queue(commit: string | null, opts: { deploy?: boolean; ref?: string; trigger?: "manual" | "push" } = {}) {
  return s.db.transaction(async (tx) => {
    const b = await enqueueBuild(tx, { orgId: s.ctx.orgId, serviceId, commit, ref: opts.ref ?? "main", trigger: opts.trigger ?? "manual", createdBy: "test", deploy: opts.deploy ?? true });
    await notifyDesired(tx, buildKey(b.id));
    return b;
  });
}

const row = async (id: string) => (await s.db.select().from(build).where(eq(build.id, id)))[0]!;
const logOf = async (id: string) => (await s.db.select().from(buildLog).where(eq(buildLog.buildId, id)).orderBy(asc(buildLog.seq))).map((l) => l.line);

function finished(id: string, timeoutMs = 120_000) {
  return waitFor(
    `build ${id} to finish`,
    async () => {
      const b = await row(id);
      return ["succeeded", "failed", "cancelled"].includes(b.status) ? b : undefined;
    },
    { timeoutMs, describe: async () => JSON.stringify({ build: await row(id), log: (await logOf(id)).slice(-15), worker: s.logs.slice(-10) }) },
  );
}

/** What the service's running container answers on its app network. */
async function serving(): Promise<string> {
  const [c] = (await s.containers(NAME)).filter((x) => x.state === "running");
  return c ? s.body(c.id, networkName(s.shortName, appId)) : "";
}

/** Whether any process on the host (BuildKit's runc containers included) runs `argv`. */
async function processRunning(argv: string): Promise<boolean> {
  const { stdout } = await run("ps", ["-eo", "args"]);
  return stdout.split("\n").some((l) => l.trim() === argv);
}

describe("builds from git on the real engine", () => {
  let firstImageId = "";

  it("a pushed commit builds with BuildKit, deploys as build:<id> and serves the new content", async () => {
    const commit = await repo.commit(page("built one\n"));
    const b = await queue(null);
    const done = await finished(b.id);
    expect(done.status, done.message).toBe("succeeded");
    expect(done.commit).toBe(commit);
    expect(done.image).toBe(builtImageName(s.shortName, serviceId, commit));
    firstImageId = done.imageId!;
    const inspected = await s.runtime.docker.getImage(done.image!).inspect();
    expect(inspected.Id).toBe(firstImageId);
    expect(inspected.Config.Labels?.[Labels.commit]).toBe(commit);
    expect(inspected.Config.Labels?.[Labels.source]).toBe(repo.url);
    expect(inspected.Config.Labels?.[Labels.instance]).toBe(s.shortName);
    // The release is the build's, and the service serves the built page.
    const [rel] = await s.db.select().from(release).where(and(eq(release.serviceId, serviceId), eq(release.createdBy, `build:${b.id}`)));
    expect(rel).toBeDefined();
    await s.waitRelease(NAME, rel!.id);
    expect(await serving()).toBe("built one\n");
    // Recorded like a pulled image, so image cleanup keeps it only while kept releases need it.
    const pulled = await s.db.select().from(pulledImage).where(eq(pulledImage.imageId, firstImageId));
    expect(pulled.map((p) => p.ref)).toContain(done.image);
    const [src] = await s.db.select().from(gitSource).where(eq(gitSource.id, sourceId));
    expect(src!.lastSeenCommit).toBe(commit);
    expect(src!.lastError).toBe("");
  });

  it("the same commit built again (Build now, no deploy) is all cached in the engine's BuildKit cache", async () => {
    const b = await requestBuild({ ctx: s.ctx, envId: s.ctx.envId, name: NAME, input: { deploy: false } });
    expect(b).toMatchObject({ status: "queued", trigger: "manual", ref: "main", deploy: false, commit: null });
    const done = await finished(b.id);
    expect(done.status, done.message).toBe("succeeded");
    expect(done.imageId).toBe(firstImageId);
    expect(done.message).toMatch(/(\d+) of \1 steps cached/);
    expect((await logOf(b.id)).some((l) => / CACHED$/.test(l))).toBe(true);
    // The API's views: newest first, one with its log; another organization's caller gets a 404.
    const list = await listBuilds({ ctx: s.ctx, envId: s.ctx.envId, name: NAME });
    expect(list[0]!.id).toBe(b.id);
    expect(list[0]!.durationMs).toBeGreaterThan(0);
    const one = await getBuild({ ctx: s.ctx, envId: s.ctx.envId, name: NAME, id: b.id });
    expect(one.log.map((l) => l.line)).toEqual(await logOf(b.id));
    const other = await seedOrg(s.db, "builds-other", s.kit);
    await expect(getBuild({ ctx: other, envId: s.ctx.envId, name: NAME, id: b.id })).rejects.toMatchObject({ code: "not_found" });
    await expect(cancelBuild({ ctx: other, envId: s.ctx.envId, name: NAME, id: b.id })).rejects.toMatchObject({ code: "not_found" });
    await expect(cancelBuild({ ctx: s.ctx, envId: s.ctx.envId, name: NAME, id: b.id })).rejects.toMatchObject({ code: "conflict" });
    await other.cleanup();
  });

  it("a failing step fails the build naming the step; the running release keeps serving", async () => {
    await repo.commit({ Dockerfile: `FROM ${IMAGES.v1.tag}\nCOPY www /www\nRUN ["/bin/busybox", "false"]\n` });
    const b = await queue(null);
    const done = await finished(b.id);
    expect(done.status).toBe("failed");
    expect(done.step).toBe('[3/3] RUN ["/bin/busybox", "false"]');
    expect(done.message).toMatch(/exit code: 1/);
    expect(await serving()).toBe("built one\n");
    expect((await getStatus({ ctx: s.ctx, envId: s.ctx.envId, name: NAME })).phase).toBe("running");
  });

  it("a ref that does not exist fails with a clear last_error", async () => {
    const b = await queue(null, { ref: "nope" });
    const done = await finished(b.id);
    expect(done).toMatchObject({ status: "failed", step: "fetching", message: "ref nope does not exist" });
    const [src] = await s.db.select().from(gitSource).where(eq(gitSource.id, sourceId));
    expect(src!.lastError).toBe("ref nope does not exist");
  });

  it("a push deploys only while its commit is the branch's tip on the forge: a delivery for an older commit is not deployed, saying why (issue 42 finding 1 follow-up)", async () => {
    const old = await repo.commit(page("an old push\n"));
    const tip = await repo.commit(page("the branch's tip\n"));
    const b = await queue(old, { trigger: "push" });
    const done = await finished(b.id);
    expect(done).toMatchObject({ status: "cancelled", step: "fetching", commit: old, image: null, message: `the branch is at ${tip.slice(0, 12)} now; a delivery for ${old.slice(0, 12)} was not deployed` });
    expect(await s.db.select().from(release).where(and(eq(release.serviceId, serviceId), eq(release.createdBy, `build:${b.id}`)))).toEqual([]);
    expect(await serving()).toBe("built one\n");
  });

  it("a cancel stops the build on the engine: its process is gone and the build is cancelled", async () => {
    const secs = `${randomInt(400, 900)}`;
    await repo.commit({ Dockerfile: `FROM ${IMAGES.v1.tag}\nRUN ["/bin/busybox", "sleep", "${secs}"]\n` });
    const b = await queue(null);
    await waitFor("the build's sleep to run", async () => ((await processRunning(`/bin/busybox sleep ${secs}`)) ? true : undefined), { timeoutMs: 60_000 });
    await cancelBuild({ ctx: s.ctx, envId: s.ctx.envId, name: NAME, id: b.id });
    const done = await finished(b.id, 20_000);
    expect(done.status).toBe("cancelled");
    await waitFor("the build's process to be gone", async () => ((await processRunning(`/bin/busybox sleep ${secs}`)) ? undefined : true), { timeoutMs: 20_000 });
    expect(await serving()).toBe("built one\n");
  });

  it("the deadline stops a build that runs too long, on the engine too", async () => {
    const secs = `${randomInt(400, 900)}`;
    await repo.commit({ Dockerfile: `FROM ${IMAGES.v1.tag}\nRUN ["/bin/busybox", "sleep", "${secs}"]\n` });
    const b = await queue(null);
    const done = await finished(b.id, (DEADLINE_SECONDS + 30) * 1000);
    expect(done.status).toBe("failed");
    expect(done.message).toMatch(new RegExp(`longer than ${DEADLINE_SECONDS} s`));
    await waitFor("the build's process to be gone", async () => ((await processRunning(`/bin/busybox sleep ${secs}`)) ? undefined : true), { timeoutMs: 20_000 });
  });

  it("promote deploys the built image id in another environment, with no rebuild", async () => {
    const staging = await createEnvironment({ ctx: s.ctx, projectId: s.ctx.projectId, input: { name: "staging" } });
    await createApp({ ctx: s.ctx, envId: staging.id, input: { name: "shop" } });
    await createService({ ctx: s.ctx, envId: staging.id, input: { name: NAME, app: "shop", image: IMAGES.v2.tag, port: 8080, healthPath: "/healthz" } });
    const builds = await s.db.select({ id: build.id }).from(build).where(eq(build.serviceId, serviceId));
    const r = await promoteService({ ctx: s.ctx, envId: s.ctx.envId, name: NAME, input: { to: staging.id } });
    expect(r.imageId).toBe(firstImageId);
    expect(await s.db.select({ id: build.id }).from(build).where(eq(build.serviceId, serviceId))).toHaveLength(builds.length);
  });

  it("the token never shows: not in the log, messages, last_error or the worker's output", async () => {
    await s.db.update(gitCredential).set({ sealed: s.kit.keyring.seal(`${TOKEN}-wrong`) }).where(eq(gitCredential.orgId, s.ctx.orgId));
    const b = await queue(null);
    const done = await finished(b.id);
    expect(done).toMatchObject({ status: "failed", message: "the repository does not exist or the credential cannot read it" });
    const [src] = await s.db.select().from(gitSource).where(eq(gitSource.id, sourceId));
    expect(src!.lastError).toBe("the repository does not exist or the credential cannot read it");
    const all = await s.db.select().from(build).where(eq(build.serviceId, serviceId));
    const text = JSON.stringify({ all, logs: await Promise.all(all.map((x) => logOf(x.id))), worker: s.logs, src });
    expect(text).not.toContain(TOKEN);
    expect(git.requests.join("\n")).not.toContain(TOKEN);
    await s.db.update(gitCredential).set({ sealed: s.kit.keyring.seal(TOKEN) }).where(eq(gitCredential.orgId, s.ctx.orgId));
  });

  it("a source that polls builds and deploys a new commit of its ref (trigger poll)", async () => {
    const commit = await repo.commit(page("polled\n"));
    await s.db.update(gitSource).set({ pollIntervalSeconds: 1 }).where(eq(gitSource.id, sourceId));
    const b = await waitFor("a poll build", async () => (await s.db.select().from(build).where(and(eq(build.serviceId, serviceId), eq(build.commit, commit), eq(build.trigger, "poll"))))[0], { timeoutMs: 30_000 });
    const done = await finished(b.id);
    expect(done.status, done.message).toBe("succeeded");
    await waitFor("the polled page", async () => ((await serving()) === "polled\n" ? true : undefined), { timeoutMs: 60_000 });
    await s.db.update(gitSource).set({ pollIntervalSeconds: null }).where(eq(gitSource.id, sourceId));
    const [src] = await s.db.select().from(gitSource).where(eq(gitSource.id, sourceId));
    expect(src!.lastSeenCommit).toBe(commit);
    expect(src!.lastPolledAt).not.toBeNull();
    // One build per new commit: later polls see it built.
    expect(await s.db.select().from(build).where(and(eq(build.serviceId, serviceId), eq(build.commit, commit)))).toHaveLength(1);
  });

  it("a build a stopped worker left running is failed as interrupted by the next one", async () => {
    const [b] = await s.db.insert(build).values({ orgId: s.ctx.orgId, serviceId, ref: "main", trigger: "manual", createdBy: "test", status: "running", runner: "gone:1:abc" }).returning();
    await s.stopWorker();
    await s.startWorker({ builds: { builder: dockerImageBuilder(s.runtime.docker), fingerprintKey: s.kit.fingerprintKey, timeoutSeconds: DEADLINE_SECONDS, workDir, pollTickMs: 500 } });
    const done = await finished(b!.id, 30_000);
    expect(done.status).toBe("failed");
    expect(done.message).toMatch(/^interrupted/);
  });
});
