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
import { putSecret } from "@levelrail/services/env/secrets";
import { createService } from "@levelrail/services/service/write";
import { buildKey } from "@levelrail/spec/keys";
import { Labels } from "@levelrail/spec/naming";
import { type GitServer, type TestRepo, startGitServer } from "@levelrail/testkit/git";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "../../../test/harness";

/**
 * A build arg's value stays in the built image's history (`docker history`, the image's config), for
 * anyone who can read the image: on the real engine, a plain build arg shows there, so a secret is
 * never passed as one. A source whose buildArgs name a secret fails before anything reaches the
 * engine, naming the key; no image holds the value, nor does the build's log or message.
 */
let s: Awaited<ReturnType<typeof setupSuite>>;
let git: GitServer;
let repo: TestRepo;
let serviceId: string;
const workDir = mkdtempSync(join(tmpdir(), "lrbd-secret-args-"));
const SECRET = `npm_${randomBytes(12).toString("hex")}`;
const PLAIN = `plain-${randomBytes(6).toString("hex")}`;

beforeAll(async () => {
  s = await setupSuite("secretargs");
  git = await startGitServer();
  repo = await git.repo(`secret-args-${s.shortName}`);
  await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
  serviceId = (await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "web", app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz", env: { FLAVOUR: PLAIN } } })).id;
  await putSecret({ ctx: s.ctx, envId: s.ctx.envId, name: "web", key: "NPM_TOKEN", input: { value: SECRET } });
  await repo.commit({ Dockerfile: `FROM ${IMAGES.v1.tag}\nARG FLAVOUR\nARG NPM_TOKEN\nRUN echo "flavour=$FLAVOUR token=$NPM_TOKEN" > /tmp/args\n` });
  await s.db.insert(gitSource).values({ orgId: s.ctx.orgId, serviceId, url: repo.url, ref: "main", webhookSecretSealed: s.kit.keyring.seal("hook") });
  await s.startWorker({ builds: { builder: dockerImageBuilder(s.runtime.docker), fingerprintKey: s.kit.fingerprintKey, timeoutSeconds: 120, workDir, pollTickMs: 60_000 } });
}, 180_000);

afterAll(async () => {
  await s?.teardown();
  await git?.close();
  rmSync(workDir, { recursive: true, force: true });
  const images = await s?.runtime.docker.listImages({ filters: { label: [`${Labels.instance}=${s.shortName}`] } });
  for (const i of images ?? []) await s.runtime.docker.getImage(i.Id).remove({ force: true }).catch(() => undefined);
});

async function built(buildArgs: string[]) {
  await s.db.update(gitSource).set({ buildArgs }).where(eq(gitSource.serviceId, serviceId));
  const b = await s.db.transaction(async (tx) => {
    const q = await enqueueBuild(tx, { orgId: s.ctx.orgId, serviceId, commit: null, ref: "main", trigger: "manual", createdBy: "test", deploy: false });
    await notifyDesired(tx, buildKey(q.id));
    return q;
  });
  const done = await waitFor(
    `build ${b.id}`,
    async () => {
      const [r] = await s.db.select().from(build).where(eq(build.id, b.id));
      return r && ["succeeded", "failed", "cancelled"].includes(r.status) ? r : undefined;
    },
    { timeoutMs: 120_000, describe: async () => JSON.stringify(s.logs.slice(-10)) },
  );
  const log = (await s.db.select().from(buildLog).where(eq(buildLog.buildId, b.id)).orderBy(asc(buildLog.seq))).map((l) => l.line);
  return { done, log };
}

/** Everything the engine keeps about the service's built images: their history and config. */
async function imagesText(): Promise<string> {
  const images = await s.runtime.docker.listImages({ filters: { label: [`${Labels.instance}=${s.shortName}`] } });
  let text = "";
  for (const i of images) {
    const img = s.runtime.docker.getImage(i.Id);
    text += JSON.stringify(await img.history()) + JSON.stringify(await img.inspect());
  }
  return text;
}

describe("build args and the image's history (issue 42, finding 12)", () => {
  it("a plain build arg's value is in the built image's history: why a secret never is one", async () => {
    const { done } = await built(["FLAVOUR"]);
    expect(done.status, done.message).toBe("succeeded");
    const history = JSON.stringify(await s.runtime.docker.getImage(done.imageId!).history());
    expect(history).toContain(`FLAVOUR=${PLAIN}`);
  });

  it("a source whose buildArgs name a secret fails naming the key; no image, log or message holds its value", async () => {
    const { done, log } = await built(["FLAVOUR", "NPM_TOKEN"]);
    expect(done.status).toBe("failed");
    expect(done.imageId).toBeNull();
    expect(done.message).toBe("the build args cannot be resolved: build arg NPM_TOKEN is a secret, and a build arg's value stays in the built image's history (docker history); remove it from the source's buildArgs");
    expect(JSON.stringify({ done, log })).not.toContain(SECRET);
    expect(await imagesText()).not.toContain(SECRET);
  });
});
