import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dockerImageBuilder } from "@levelrail/docker/build";
import { notifyDesired } from "@levelrail/db/notify";
import { build, buildLog, gitSource } from "@levelrail/db/schema/git";
import { createApp } from "@levelrail/services/app/app";
import { enqueueBuild } from "@levelrail/services/build/enqueue";
import { createService } from "@levelrail/services/service/write";
import { buildKey } from "@levelrail/spec/keys";
import { Labels, builtImageName, noSuchImage } from "@levelrail/spec/naming";
import { service } from "@levelrail/db/schema/services";
import { createRegistryCredential } from "@levelrail/services/config/registry-credentials";
import { deployService } from "@levelrail/services/release/deploy";
import { getStatus } from "@levelrail/services/service/view";
import { ensureTestImage } from "@levelrail/testkit/images";
import { startRegistry } from "@levelrail/testkit/registry";
import { type GitServer, type TestRepo, startGitServer } from "@levelrail/testkit/git";
import { seedOrg } from "@levelrail/testkit/seed";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "../../../test/harness";

/**
 * The tenant walls of builds on the real engine's BuildKit, which every organization's builds
 * share: a cache mount (`RUN --mount=type=cache`) one organization's build writes is read by that
 * service's next build and by no other organization's, whatever id both Dockerfiles give it; a
 * Dockerfile that names another frontend (`# syntax=`) or asks for a secret or SSH mount fails
 * before anything reaches the engine, naming its line. The engine's image store is every
 * organization's too: a build starts only from images its organization may pull (another's private
 * pull or another's build fails before building), and a built image is its organization's only.
 */
let s: Awaited<ReturnType<typeof setupSuite>>;
let other: Awaited<ReturnType<typeof seedOrg>>;
let git: GitServer;
const workDir = mkdtempSync(join(tmpdir(), "lrbd-walls-"));
/** Both organizations' Dockerfiles name the same cache id; the test's own, so earlier runs left nothing under it. */
const CACHE_ID = `shared-${randomBytes(6).toString("hex")}`;
const MARKER = `org-a-private-${randomBytes(8).toString("hex")}`;

interface Tenant {
  orgId: string;
  serviceId: string;
  repo: TestRepo;
}
let a: Tenant;
let b: Tenant;
let registry: Awaited<ReturnType<typeof startRegistry>>;
/** Org A's private image, pulled onto the engine with A's registry login. */
let privateRef: string;
let privateHostTag: string;
let otherCtx: Parameters<typeof createApp>[0]["ctx"] & { orgId: string; envId: string };

async function tenant(ctx: Parameters<typeof createApp>[0]["ctx"] & { orgId: string }, envId: string, label: string): Promise<Tenant> {
  await createApp({ ctx, envId, input: { name: "shop" } });
  const serviceId = (await createService({ ctx, envId, input: { name: "web", app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } })).id;
  const repo = await git.repo(`${label}-${s.shortName}`);
  await s.db.insert(gitSource).values({ orgId: ctx.orgId, serviceId, url: repo.url, ref: "main", webhookSecretSealed: s.kit.keyring.seal("hook") });
  return { orgId: ctx.orgId, serviceId, repo };
}

beforeAll(async () => {
  s = await setupSuite("build-walls");
  git = await startGitServer();
  other = await seedOrg(s.db, "build-walls-b", s.kit);
  a = await tenant(s.ctx, s.ctx.envId, "walls-a");
  otherCtx = { ...other, shortName: s.shortName, allowPrivateTargets: true };
  b = await tenant(otherCtx, other.envId, "walls-b");
  // Org A's private image: pushed to the private registry, dropped, then pulled with A's login (as A's deploy does).
  registry = await startRegistry();
  privateHostTag = `levelrail-test/walls-private-${s.shortName}:v1`;
  await ensureTestImage(s.runtime.docker, { tag: privateHostTag, body: "private\n", healthy: true });
  privateRef = `${registry.server}/private/base-${s.shortName}:v1`;
  await s.runtime.docker.getImage(privateHostTag).tag({ repo: privateRef.slice(0, privateRef.lastIndexOf(":")), tag: "v1" });
  const auth = { username: registry.username, password: registry.password, serveraddress: registry.server };
  const push = await s.runtime.docker.getImage(privateRef).push({ authconfig: auth });
  await new Promise<void>((resolve, reject) =>
    s.runtime.docker.modem.followProgress(push, (err: Error | null, out: { error?: string }[]) => (err || out.some((o) => o.error) ? reject(err ?? new Error(out.find((o) => o.error)?.error)) : resolve())),
  );
  await s.runtime.docker.getImage(privateRef).remove();
  await s.runtime.pullImage(privateRef, auth, () => {});
  await createRegistryCredential({ ctx: s.ctx, input: { name: "private", server: registry.server, username: registry.username, password: registry.password } });
  await s.startWorker({ builds: { builder: dockerImageBuilder(s.runtime.docker), fingerprintKey: s.kit.fingerprintKey, timeoutSeconds: 120, workDir, pollTickMs: 60_000 } });
}, 180_000);

afterAll(async () => {
  await registry?.stop();
  await s?.runtime.docker.getImage(privateRef).remove({ force: true }).catch(() => undefined);
  await s?.runtime.docker.getImage(privateHostTag).remove({ force: true }).catch(() => undefined);
  await s?.teardown();
  await other?.cleanup().catch(() => undefined);
  await git?.close();
  rmSync(workDir, { recursive: true, force: true });
  const images = await s?.runtime.docker.listImages({ filters: { label: [`${Labels.instance}=${s.shortName}`] } });
  for (const i of images ?? []) await s.runtime.docker.getImage(i.Id).remove({ force: true }).catch(() => undefined);
});

const row = async (id: string) => (await s.db.select().from(build).where(eq(build.id, id)))[0]!;
const logOf = async (id: string) => (await s.db.select().from(buildLog).where(eq(buildLog.buildId, id)).orderBy(asc(buildLog.seq))).map((l) => l.line);

/** Commits `dockerfile` to the tenant's repository, builds it (no deploy) and answers the finished build with its log. */
async function buildOf(t: Tenant, dockerfile: string) {
  await t.repo.commit({ Dockerfile: dockerfile });
  const queued = await s.db.transaction(async (tx) => {
    const q = await enqueueBuild(tx, { orgId: t.orgId, serviceId: t.serviceId, commit: null, ref: "main", trigger: "manual", createdBy: "test", deploy: false });
    await notifyDesired(tx, buildKey(q.id));
    return q;
  });
  const done = await waitFor(
    `build ${queued.id} to finish`,
    async () => {
      const r = await row(queued.id);
      return ["succeeded", "failed", "cancelled"].includes(r.status) ? r : undefined;
    },
    { timeoutMs: 150_000, describe: async () => JSON.stringify({ build: await row(queued.id), log: (await logOf(queued.id)).slice(-15), worker: s.logs.slice(-10) }) },
  );
  return { ...done, log: await logOf(queued.id) };
}

/**
 * A step (never cached: `nonce` differs each time) that prints what the cache mount holds, then
 * writes `write` there when given, then exits 0 only if the file was there iff `expect` says so.
 */
const cacheStep = (o: { nonce: string; write?: string; expect: "present" | "absent" }) => {
  const script = [
    `echo nonce ${o.nonce}`,
    `if [ -e /cache/marker ]; then echo "cache holds: $(cat /cache/marker)"; found=present; else echo "cache holds nothing"; found=absent; fi`,
    o.write ? `echo ${o.write} > /cache/marker` : "true",
    `test $found = ${o.expect}`,
  ].join("; ");
  return `FROM ${IMAGES.v1.tag}\nRUN --mount=type=cache,target=/cache,id=${CACHE_ID} ["/bin/busybox", "sh", "-c", ${JSON.stringify(script)}]\n`;
};
const nonce = () => randomBytes(6).toString("hex");

describe("tenant walls of builds on the real engine", () => {
  it("a cache mount org A's build writes is read by A's next build and not by org B's, under the same id", async () => {
    const first = await buildOf(a, cacheStep({ nonce: nonce(), write: MARKER, expect: "absent" }));
    expect(first.status, `${first.message}\n${first.log.join("\n")}`).toBe("succeeded");

    // The same service's next build (another commit, so the step runs again) finds it: the cache works.
    const again = await buildOf(a, cacheStep({ nonce: nonce(), expect: "present" }));
    expect(again.status, `${again.message}\n${again.log.join("\n")}`).toBe("succeeded");
    expect(again.log.join("\n")).toContain(`cache holds: ${MARKER}`);

    // Another organization's build with the very same mount sees an empty cache.
    const theirs = await buildOf(b, cacheStep({ nonce: nonce(), expect: "absent" }));
    expect(theirs.status, `${theirs.message}\n${theirs.log.join("\n")}`).toBe("succeeded");
    expect(theirs.log.join("\n")).toContain("cache holds nothing");
    expect(JSON.stringify(theirs)).not.toContain(MARKER);
  });

  it("a Dockerfile naming another frontend (# syntax=) fails on its line, before the engine sees it", async () => {
    const done = await buildOf(b, `# syntax=docker/dockerfile:1\n${cacheStep({ nonce: nonce(), expect: "absent" })}`);
    expect(done).toMatchObject({ status: "failed", step: "Dockerfile line 1", imageId: null });
    expect(done.message).toMatch(/^Dockerfile line 1: a syntax directive picks another Dockerfile frontend/);
    expect(done.log.join("\n")).not.toContain("nonce");
  });

  it("a secret or SSH mount fails naming its line; nothing is built", async () => {
    const secret = await buildOf(b, `FROM ${IMAGES.v1.tag}\nRUN true\nRUN --mount=type=secret,id=npm ["/bin/busybox", "cat", "/run/secrets/npm"]\n`);
    expect(secret).toMatchObject({ status: "failed", step: "Dockerfile line 3", imageId: null });
    expect(secret.message).toMatch(/type=secret: builds get no secrets/);
    const ssh = await buildOf(b, `FROM ${IMAGES.v1.tag}\nRUN --mount=type=ssh \\\n  ["/bin/busybox", "true"]\n`);
    expect(ssh).toMatchObject({ status: "failed", step: "Dockerfile line 2" });
    expect(ssh.message).toMatch(/type=ssh: builds get no SSH agent/);
  });

  it("a source listing BUILDKIT_CACHE_MOUNT_NS as a build arg (saved before the API refused it) fails naming it", async () => {
    await s.db.update(gitSource).set({ buildArgs: ["BUILDKIT_CACHE_MOUNT_NS"] }).where(eq(gitSource.serviceId, b.serviceId));
    const done = await buildOf(b, cacheStep({ nonce: nonce(), expect: "absent" }));
    expect(done).toMatchObject({ status: "failed", step: "fetching", imageId: null });
    expect(done.message).toMatch(/build arg BUILDKIT_CACHE_MOUNT_NS is the build engine's own option/);
    await s.db.update(gitSource).set({ buildArgs: [] }).where(eq(gitSource.serviceId, b.serviceId));
  });
});

describe("what a build starts from, and whose a built image is", () => {
  const RUN_TRUE = 'RUN ["/bin/busybox", "true"]\n';

  it("org B's Dockerfile starting FROM, or copying --from, org A's privately pulled image fails before building; A's own build from it succeeds", async () => {
    expect((await s.runtime.imageRepoDigests(privateRef))?.length).toBeGreaterThan(0); // A's pull is in the engine's store

    const from = await buildOf(b, `FROM ${privateRef}\n${RUN_TRUE}`);
    expect(from).toMatchObject({ status: "failed", step: "Dockerfile line 1", imageId: null });
    expect(from.message).toContain(`Dockerfile line 1: image ${privateRef} is on this host, but its registry did not confirm this build may pull it without a registry credential`);

    const copy = await buildOf(b, `FROM ${IMAGES.v1.tag} AS base\nCOPY --from=${privateRef} /bin/busybox /stolen\n`);
    expect(copy).toMatchObject({ status: "failed", step: "Dockerfile line 2", imageId: null });

    // Through a global ARG's default, substituted as BuildKit would.
    const viaArg = await buildOf(b, `ARG BASE=${privateRef.slice(0, privateRef.lastIndexOf(":"))}\nFROM \${BASE}:v1\n${RUN_TRUE}`);
    expect(viaArg).toMatchObject({ status: "failed", step: "Dockerfile line 2", imageId: null });

    // Org A has a registry credential for that registry: its build may start from it.
    const own = await buildOf(a, `FROM ${privateRef}\n${RUN_TRUE}`);
    expect(own.status, `${own.message}\n${own.log.join("\n")}`).toBe("succeeded");
  });

  it("org A's built image is A's: B's service naming it is a 404, B's build FROM it and B's release of it fail as an image that does not exist", async () => {
    const built = await buildOf(a, `FROM ${IMAGES.v1.tag}\nRUN ["/bin/busybox", "sh", "-c", "echo ${nonce()} > /built"]\n`);
    expect(built.status, `${built.message}\n${built.log.join("\n")}`).toBe("succeeded");
    const image = built.image!;
    expect(image).toBe(builtImageName(s.shortName, a.serviceId, built.commit!));
    expect((await s.runtime.imageOrigin(image))?.labels[Labels.org]).toBe(a.orgId);
    // The same name built before (no organization label, no registry host): a tag of the same image.
    const oldName = `${s.shortName}/${a.serviceId}:${built.commit}`;
    await s.runtime.docker.getImage(image).tag({ repo: `${s.shortName}/${a.serviceId}`, tag: built.commit! });
    // A built image of no service at all: what B must not be able to tell apart from A's.
    const missing = builtImageName(s.shortName, "00000000-0000-4000-8000-000000000000", built.commit!);

    for (const name of [image, oldName, missing]) {
      await expect(createService({ ctx: otherCtx, envId: other.envId, input: { name: "thief", app: "shop", image: name, port: 8080, healthPath: "/healthz" } }))
        .rejects.toMatchObject({ code: "not_found", field: "image", message: `image: no such image ${name}` });
      await expect(deployService({ ctx: otherCtx, envId: other.envId, name: "web", input: { image: name } })).rejects.toMatchObject({ code: "not_found", field: "image" });
    }

    // A Dockerfile of B's starting from it fails as it does for a built image that does not exist.
    for (const name of [image, oldName, missing]) {
      const theirs = await buildOf(b, `FROM ${name}\n${RUN_TRUE}`);
      expect(theirs).toMatchObject({ status: "failed", step: "Dockerfile line 1", imageId: null, message: `Dockerfile line 1: ${noSuchImage(name)}` });
    }

    // B's service whose stored image names it (written before the API refused it) fails its deploy the same way, and starts nothing.
    const thief = (await createService({ ctx: otherCtx, envId: other.envId, input: { name: "thief", app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } })).id;
    for (const name of [image, oldName]) {
      await s.db.update(service).set({ image: name }).where(eq(service.id, thief));
      await deployService({ ctx: otherCtx, envId: other.envId, name: "thief", input: {} });
      const st = await waitFor("B's deploy of A's built image to fail", async () => {
        const x = await getStatus({ ctx: otherCtx, envId: other.envId, name: "thief" });
        return x.phase === "failed" && x.message === noSuchImage(name) ? x : undefined;
      }, { timeoutMs: 60_000, describe: async () => JSON.stringify(await getStatus({ ctx: otherCtx, envId: other.envId, name: "thief" })) });
      expect(st.lastDeploy?.outcome).toBe("failed");
      expect((await s.runtime.listContainers([`${Labels.service}=${thief}`])).filter((c) => c.labels[Labels.role] === "service")).toEqual([]);
    }
    await s.runtime.docker.getImage(oldName).remove().catch(() => undefined);
  });
});
