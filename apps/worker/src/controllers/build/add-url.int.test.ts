import { mkdtempSync, rmSync } from "node:fs";
import { type Server, createServer } from "node:http";
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
import { Labels } from "@levelrail/spec/naming";
import { type GitServer, type TestRepo, startGitServer } from "@levelrail/testkit/git";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "../../../test/harness";

/**
 * `ADD <url>` on the real engine: BuildKit itself would fetch it from the engine's host (its
 * loopback, private addresses and metadata endpoints in reach, redirects followed). A Dockerfile
 * asking for it, in any spelling, in an `ONBUILD` trigger or as a git repository, fails naming its
 * line before the engine sees it: a loopback HTTP server this test starts receives nothing.
 */
let s: Awaited<ReturnType<typeof setupSuite>>;
let git: GitServer;
let repo: TestRepo;
let serviceId: string;
let server: Server;
let port: number;
const requests: string[] = [];
const workDir = mkdtempSync(join(tmpdir(), "lrbd-addurl-"));

beforeAll(async () => {
  s = await setupSuite("build-add-url");
  git = await startGitServer();
  server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.end("fetched\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
  await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
  serviceId = (await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "web", app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } })).id;
  repo = await git.repo(`addurl-${s.shortName}`);
  await s.db.insert(gitSource).values({ orgId: s.ctx.orgId, serviceId, url: repo.url, ref: "main", webhookSecretSealed: s.kit.keyring.seal("hook") });
  await s.startWorker({ builds: { builder: dockerImageBuilder(s.runtime.docker), fingerprintKey: s.kit.fingerprintKey, timeoutSeconds: 120, workDir, pollTickMs: 60_000 } });
}, 180_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await s?.teardown();
  await git?.close();
  rmSync(workDir, { recursive: true, force: true });
  const images = await s?.runtime.docker.listImages({ filters: { label: [`${Labels.instance}=${s.shortName}`] } });
  for (const i of images ?? []) await s.runtime.docker.getImage(i.Id).remove({ force: true }).catch(() => undefined);
});

const row = async (id: string) => (await s.db.select().from(build).where(eq(build.id, id)))[0]!;
const logOf = async (id: string) => (await s.db.select().from(buildLog).where(eq(buildLog.buildId, id)).orderBy(asc(buildLog.seq))).map((l) => l.line);

async function buildOf(dockerfile: string) {
  await repo.commit({ Dockerfile: dockerfile });
  const queued = await s.db.transaction(async (tx) => {
    const q = await enqueueBuild(tx, { orgId: s.ctx.orgId, serviceId, commit: null, ref: "main", trigger: "manual", createdBy: "test", deploy: false });
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

describe("ADD of a URL on the real engine", () => {
  it("fails naming its line, and nothing reaches the loopback server it names", async () => {
    const url = `http://127.0.0.1:${port}`;
    const plain = await buildOf(`FROM scratch\nADD ${url}/plain /x\n`);
    expect(requests, `${plain.status}: ${plain.message}`).toEqual([]);
    expect(plain).toMatchObject({ status: "failed", step: "Dockerfile line 2", imageId: null });
    expect(plain.message).toBe("Dockerfile line 2: ADD of a URL is not allowed: download in a RUN step or vendor the file");

    const checksum = await buildOf(`FROM scratch\n\nADD --checksum=sha256:24454f830cdb571e2c4ad15481119c43b3cafd48dd869a9b2945d1036d1dc68d "${url}/checksum" /x\n`);
    expect(checksum).toMatchObject({ status: "failed", step: "Dockerfile line 3", imageId: null });

    const json = await buildOf(`FROM scratch\nADD ["${url}/json", "/x"]\n`);
    expect(json).toMatchObject({ status: "failed", step: "Dockerfile line 2", imageId: null });

    const gitRepo = await buildOf(`FROM scratch\nADD ${url}/repo.git#main /src\n`);
    expect(gitRepo).toMatchObject({ status: "failed", step: "Dockerfile line 2", imageId: null });

    const onbuild = await buildOf(`FROM ${IMAGES.v1.tag}\nONBUILD ADD ${url}/onbuild /x\nRUN ["/bin/busybox", "true"]\n`);
    expect(onbuild).toMatchObject({ status: "failed", step: "Dockerfile line 2", imageId: null });
    expect(onbuild.message).toMatch(/ADD of a URL is not allowed/);

    const variable = await buildOf(`FROM scratch\nARG U=${url}/variable\nADD $U /x\n`);
    expect(variable).toMatchObject({ status: "failed", step: "Dockerfile line 3", imageId: null });
    expect(variable.message).toMatch(/ADD with a variable in its source is not allowed/);

    expect(requests).toEqual([]);
  });
});
