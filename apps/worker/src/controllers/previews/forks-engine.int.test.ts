import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { gitSource, preview } from "@levelrail/db/schema/git";
import { environment } from "@levelrail/db/schema/orgs";
import { service } from "@levelrail/db/schema/services";
import { createApp } from "@levelrail/services/app/app";
import { createBackupTarget } from "@levelrail/services/config/backup-targets";
import { putSecret } from "@levelrail/services/env/secrets";
import { receiveGitHook } from "@levelrail/services/git-hook/receive";
import { hmacHex } from "@levelrail/services/git-hook/signature";
import { approvePreview } from "@levelrail/services/preview/approval";
import { putPreviewSettings } from "@levelrail/services/preview/settings";
import { createEnvironment } from "@levelrail/services/project/environment";
import { deployService } from "@levelrail/services/release/deploy";
import { getStatus } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { serviceFilter } from "@levelrail/spec/naming";
import { seedMember } from "@levelrail/testkit/seed";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "../../../test/harness";
import { previewsController } from "./reconcile";
import { pgPreviewStore, providerStatus } from "./store";

/**
 * A fork's approved preview on the real engine: its service's container, as `docker inspect` shows
 * it, holds none of the base environment's secrets or storage credentials, while the base's own
 * container holds them. The preview controller is driven here; the worker deploys.
 */
let s: Awaited<ReturnType<typeof setupSuite>>;
let sourceId: string;
let controller: ReturnType<typeof previewsController>;
const HOOK_SECRET = `whsec-${randomBytes(12).toString("hex")}`;
const API_KEY = `api-key-${randomBytes(12).toString("hex")}`;
const STORAGE_SECRET = `storage-${randomBytes(12).toString("hex")}`;
const B = "b".repeat(40);

async function containerEnv(serviceId: string): Promise<Record<string, string>> {
  const [c] = await s.runtime.listContainers(serviceFilter(s.shortName, serviceId));
  const env = (await s.runtime.docker.getContainer(c!.id).inspect()).Config.Env ?? [];
  return Object.fromEntries(env.map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
}

beforeAll(async () => {
  s = await setupSuite("forkenv");
  const ctx = s.ctx;
  await createApp({ ctx, envId: ctx.envId, input: { name: "shop" } });
  const target = await createBackupTarget({ ctx, input: { name: "s3", endpoint: "http://127.0.0.1:9", bucket: "shop", region: "us-east-1", accessKey: "AK", secretKey: STORAGE_SECRET } });
  await createService({ ctx, envId: ctx.envId, input: { name: "web", app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz", env: { PLAIN: "kept" }, storageTargetId: target.id } });
  await putSecret({ ctx, envId: ctx.envId, name: "web", key: "API_KEY", input: { value: API_KEY } });
  // The repository's webhook arrives at a source in another environment of the project: the base builds nothing.
  const staging = await createEnvironment({ ctx, projectId: ctx.projectId, input: { name: "staging" } });
  await createApp({ ctx, envId: staging.id, input: { name: "tools" } });
  const src = await createService({ ctx, envId: staging.id, input: { name: "src", app: "tools", image: IMAGES.v1.tag, port: 8080 } });
  const [row] = await s.db
    .insert(gitSource)
    .values({ orgId: ctx.orgId, serviceId: src.id, url: "https://github.com/acme/shop.git", ref: "main", webhookSecretSealed: ctx.kit.keyring.seal(HOOK_SECRET) })
    .returning();
  sourceId = row!.id;
  await putPreviewSettings({ ctx, projectId: ctx.projectId, input: { baseEnvironmentId: ctx.envId, domain: "preview.localhost", max: 5, ttlHours: 24 } });
  const deps = { db: s.db, kit: ctx.kit, baseDomains: [], shortName: s.shortName, runner: "forkenv-test" };
  const call = { policy: { allowPrivate: true }, timeoutMs: 2000 };
  controller = previewsController({ store: pgPreviewStore(deps, call), status: providerStatus(deps, call), now: () => new Date(), log: () => {} });
  await s.startWorker();
}, 120_000);

afterAll(async () => {
  await s?.teardown();
});

describe("a fork's approved preview on the engine", () => {
  it("runs its service with none of the base's secrets in the container's environment (docker inspect)", async () => {
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: "web", input: {} });
    expect((await s.waitPhase("web", ["running", "failed"])).phase).toBe("running");
    expect(await containerEnv(await s.serviceId("web"))).toMatchObject({ API_KEY, S3_SECRET_KEY: STORAGE_SECRET, PLAIN: "kept" });

    const body = new TextEncoder().encode(
      JSON.stringify({
        action: "opened",
        number: 7,
        pull_request: { number: 7, author_association: "NONE", head: { ref: "topic", sha: B, repo: { id: 2, full_name: "mallory/shop" } }, base: { ref: "main", repo: { id: 1, full_name: "acme/shop" } } },
        repository: { id: 1, full_name: "acme/shop" },
      }),
    );
    const headers = new Headers({ "content-type": "application/json", "x-github-event": "pull_request", "x-github-delivery": "fork-7", "x-hub-signature-256": `sha256=${hmacHex(HOOK_SECRET, body)}` });
    expect((await receiveGitHook({ db: s.db, kit: s.ctx.kit }, { sourceId, headers, body })).body).toMatchObject({ preview: { approval: "awaiting" } });
    await controller.reconcile("previews");
    const envNamed = async () => (await s.db.select().from(environment).where(and(eq(environment.projectId, s.ctx.projectId), eq(environment.name, "pr-7"))))[0];
    expect(await envNamed()).toBeUndefined();

    const developer = await seedMember(s.db, s.ctx, "forkenv-dev", "developer");
    const [p] = await s.db.select().from(preview).where(eq(preview.number, 7));
    await approvePreview({ ctx: developer, projectId: s.ctx.projectId, previewId: p!.id, input: { commit: B } });
    await controller.reconcile("previews");
    const env = await envNamed();
    const [clone] = await s.db.select().from(service).where(and(eq(service.environmentId, env!.id), eq(service.name, "web")));
    await waitFor("the preview's web to run", async () => {
      const st = await getStatus({ ctx: s.ctx, envId: env!.id, name: "web" });
      if (st.phase === "failed") throw new Error(`the preview's deploy failed: ${st.message}`);
      return st.phase === "running" && st.lastDeploy?.outcome === "succeeded" ? st : undefined;
    }, { timeoutMs: 60_000 });
    const inside = await containerEnv(clone!.id);
    expect(inside.PLAIN).toBe("kept");
    expect(Object.keys(inside).filter((k) => k === "API_KEY" || k.startsWith("S3_"))).toEqual([]);
    for (const secret of [API_KEY, STORAGE_SECRET]) expect(JSON.stringify(inside)).not.toContain(secret);
    const [after] = await s.db.select().from(preview).where(eq(preview.id, p!.id));
    expect(after!.withheld).toEqual([
      { service: "web", key: "API_KEY", kind: "secret" },
      { service: "web", key: "S3_*", kind: "storage" },
    ]);
  }, 180_000);
});
