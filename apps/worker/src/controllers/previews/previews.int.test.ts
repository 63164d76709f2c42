import { randomBytes } from "node:crypto";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, inArray, sql as q } from "drizzle-orm";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { build, gitSource, preview, previewSettings } from "@levelrail/db/schema/git";
import { environment } from "@levelrail/db/schema/orgs";
import { service } from "@levelrail/db/schema/services";
import { createApp } from "@levelrail/services/app/app";
import { receiveGitHook } from "@levelrail/services/git-hook/receive";
import { hmacHex } from "@levelrail/services/git-hook/signature";
import { putPreviewSettings } from "@levelrail/services/preview/settings";
import { createService } from "@levelrail/services/service/write";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";
import { previewsController } from "./reconcile";
import { pgPreviewStore, providerStatus } from "./store";

/**
 * The preview controller against a real PostgreSQL, with a status receiver and a "provider API" on
 * loopback: a request's preview is cloned from the base environment, routed, built and reported;
 * a new commit builds again; closing deletes the environment; the sweep closes an expired preview and
 * one whose request the provider no longer lists (matched by number).
 */
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let o: Awaited<ReturnType<typeof seedOrg>>;
let sourceId: string;
/** The statuses the provider API took: path and JSON body. */
const statusPosts: { path: string; body: string }[] = [];
let api: Server;
let apiAnswer: { status: number; numbers: number[] } = { status: 200, numbers: [] };
let controller: ReturnType<typeof previewsController>;
const SECRET = `whsec-${randomBytes(12).toString("hex")}`;
const B = "b".repeat(40);
const C = "c".repeat(40);
const logs: string[] = [];

const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
async function pr(action: string, number: number, sha: string) {
  const body = bytes({
    action,
    number,
    // A member's request from a branch of the repository itself; its statuses_url is the provider API's own.
    pull_request: {
      number,
      author_association: "MEMBER",
      statuses_url: `http://127.0.0.1:${(api.address() as AddressInfo).port}/repos/acme/shop/statuses/${sha}`,
      head: { ref: `topic-${number}`, sha, repo: { id: 1, full_name: "acme/shop" } },
      base: { ref: "main", repo: { id: 1, full_name: "acme/shop" } },
    },
    repository: { id: 1, full_name: "acme/shop" },
  });
  const headers = new Headers({ "x-github-event": "pull_request", "x-github-delivery": randomBytes(8).toString("hex"), "x-hub-signature-256": `sha256=${hmacHex(SECRET, body)}` });
  return receiveGitHook({ db, kit: o.kit }, { sourceId, headers, body });
}
const previewOf = async (n: number) => (await db.select().from(preview).where(and(eq(preview.projectId, o.projectId), eq(preview.number, n))))[0]!;
const servicesIn = async (envId: string) => db.select().from(service).where(eq(service.environmentId, envId)).orderBy(service.name);
const converge = () => controller.reconcile("previews");
const statusBodies = (): Record<string, string>[] => statusPosts.map((r) => ({ path: r.path, ...(JSON.parse(r.body) as Record<string, string>) }));

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "previews");
  ({ db, sql } = createDb(database.url));
  o = await seedOrg(db, "previews");
  api = createServer((req, res) => {
    if (req.method === "POST" && req.url?.startsWith("/repos/acme/shop/statuses/")) {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        statusPosts.push({ path: req.url!, body: Buffer.concat(chunks).toString("utf8") });
        res.writeHead(201, { "content-type": "application/json" }).end("{}");
      });
      return;
    }
    if (!req.url?.startsWith("/repos/acme/shop/pulls?state=open")) {
      res.writeHead(404).end("[]");
      return;
    }
    res.writeHead(apiAnswer.status, { "content-type": "application/json" }).end(JSON.stringify(apiAnswer.numbers.map((number) => ({ number, state: "open" }))));
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  await createApp({ ctx: o, envId: o.envId, input: { name: "shop" } });
  const image = "registry.example.com/shop:1";
  const web = await createService({ ctx: o, envId: o.envId, input: { name: "web", app: "shop", image, port: 8080, domains: ["shop.localhost"] } });
  const apiSvc = await createService({ ctx: o, envId: o.envId, input: { name: "api", app: "shop", image, port: 8080, domains: ["api.localhost"] } });
  await createService({ ctx: o, envId: o.envId, input: { name: "cache", app: "shop", image: "registry.example.com/cache:7", port: 6379 } });
  const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  const sources = await db
    .insert(gitSource)
    .values([web.id, apiSvc.id].map((serviceId) => ({ orgId: o.orgId, serviceId, url: "https://github.com/acme/shop.git", ref: "main", webhookSecretSealed: o.kit.keyring.seal(SECRET), apiProvider: "github" as const, apiUrl })))
    .returning();
  sourceId = sources[0]!.id;
  await putPreviewSettings({ ctx: o, projectId: o.projectId, input: { baseEnvironmentId: o.envId, domain: "preview.localhost", max: 5, ttlHours: 24 } });
  const deps = { db, kit: o.kit, baseDomains: [], shortName: "lrpv", runner: "lrpv-test" };
  const call = { policy: { allowPrivate: true }, timeoutMs: 5000 };
  controller = previewsController({ store: pgPreviewStore(deps, call), status: providerStatus(deps, call), now: () => new Date(), log: (l) => logs.push(l) });
});

afterAll(async () => {
  await new Promise<void>((resolve) => api.close(() => resolve()));
  await sql.end();
  await database.drop();
});

describe("a pull request's preview", () => {
  it("opens: the base cloned into pr-12 (no domains copied), routed under the preview domain, its head built, pending reported", async () => {
    expect((await pr("opened", 12, B)).status).toBe(202);
    await converge();
    const p = await previewOf(12);
    expect(p).toMatchObject({ state: "open", builtCommit: B, reported: `pending ${B}` });
    const [env] = await db.select().from(environment).where(eq(environment.id, p.environmentId!));
    expect(env!.name).toBe("pr-12");
    const svcs = await servicesIn(env!.id);
    expect(svcs.map((s) => [s.name, s.domains])).toEqual([
      ["api", ["pr-12.preview.localhost"]],
      ["cache", []],
      ["web", ["web-pr-12.preview.localhost"]],
    ]);
    // Services built from the repository get builds of the head commit (deploying once built); the others deploy as cloned.
    const builds = await db.select().from(build).where(inArray(build.serviceId, svcs.map((s) => s.id)));
    expect(builds.map((b) => [svcs.find((s) => s.id === b.serviceId)!.name, b.commit, b.trigger, b.deploy, b.ref]).sort()).toEqual([
      ["api", B, "preview", true, "topic-12"],
      ["web", B, "preview", true, "topic-12"],
    ]);
    expect(svcs.find((s) => s.name === "cache")!.currentReleaseId).not.toBeNull();
    const cloned = await db.select().from(gitSource).where(inArray(gitSource.serviceId, svcs.map((s) => s.id)));
    expect(cloned.map((s) => s.ref)).toEqual(["topic-12", "topic-12"]);
    expect(new Set(cloned.map((s) => s.webhookSecretSealed)).size).toBe(2);
    expect(statusBodies()).toEqual([
      { path: `/repos/acme/shop/statuses/${B}`, state: "pending", target_url: "http://pr-12.preview.localhost", description: "building the preview", context: "levelrail/preview" },
    ]);
    // The base keeps its own domains.
    expect((await servicesIn(o.envId)).map((s) => s.domains)).toEqual([["api.localhost"], [], ["shop.localhost"]]);
  });

  it("reports success once its builds succeeded, once", async () => {
    const p = await previewOf(12);
    const svcs = await servicesIn(p.environmentId!);
    await db.update(build).set({ status: "succeeded", finishedAt: new Date() }).where(inArray(build.serviceId, svcs.map((s) => s.id)));
    await converge();
    await converge();
    expect(statusBodies().map((s) => s.state)).toEqual(["pending", "success"]);
    expect((await previewOf(12)).reported).toBe(`success ${B}`);
  });

  it("a new head commit builds again in the same environment", async () => {
    const before = (await previewOf(12)).environmentId;
    expect((await pr("synchronize", 12, C)).status).toBe(202);
    await converge();
    const p = await previewOf(12);
    expect(p.environmentId).toBe(before);
    const svcs = await servicesIn(p.environmentId!);
    const queued = await db.select().from(build).where(and(inArray(build.serviceId, svcs.map((s) => s.id)), eq(build.commit, C)));
    expect(queued).toHaveLength(2);
    expect(statusBodies().at(-1)).toMatchObject({ path: `/repos/acme/shop/statuses/${C}`, state: "pending" });
    // One of its builds fails: the request is told so.
    await db.update(build).set({ status: "failed", step: "building", finishedAt: new Date() }).where(eq(build.id, queued[0]!.id));
    await converge();
    expect(statusBodies().at(-1)).toMatchObject({ path: `/repos/acme/shop/statuses/${C}`, state: "failure", description: "the preview's build failed" });
    expect((await previewOf(12)).reported).toBe(`failure ${C}`);
  });

  it("closing the request deletes the environment with everything in it", async () => {
    const envId = (await previewOf(12)).environmentId!;
    expect((await pr("closed", 12, C)).status).toBe(202);
    await converge();
    const p = await previewOf(12);
    expect(p).toMatchObject({ state: "closed", environmentId: null });
    expect(p.message).toContain("environment deleted");
    expect(await db.select().from(environment).where(eq(environment.id, envId))).toEqual([]);
    expect(await servicesIn(envId)).toEqual([]);
  });
});

describe("the sweep", () => {
  it("closes a preview past its time to live and one the provider no longer lists; keeps a listed one; an API that fails closes nothing", async () => {
    for (const n of [20, 21, 22]) expect((await pr("opened", n, B)).status).toBe(202);
    await converge();
    for (const n of [20, 21, 22]) expect((await previewOf(n)).environmentId).not.toBeNull();
    await db.execute(q`update preview set updated_at = now() - interval '30 hours' where project_id = ${o.projectId} and number = 20`);
    // The API fails: only the time to live counts.
    apiAnswer = { status: 500, numbers: [] };
    await controller.reconcile("preview-sweep");
    expect([(await previewOf(20)).state, (await previewOf(21)).state, (await previewOf(22)).state]).toEqual(["closed", "open", "open"]);
    expect(logs.some((l) => l.includes("answered 500"))).toBe(true);
    // 22 is no longer open at the provider; 21 is (a stacked request's base is irrelevant: numbers match).
    apiAnswer = { status: 200, numbers: [21, 99] };
    const result = await controller.reconcile("preview-sweep");
    expect(result).toEqual({ requeueAfterMs: 300_000 });
    expect((await previewOf(22)).message).toContain("no longer open at the provider");
    expect((await previewOf(20)).message).toContain("time to live");
    const envs = await Promise.all([20, 21, 22].map(async (n) => (await previewOf(n)).environmentId));
    await converge();
    expect([(await previewOf(20)).environmentId, (await previewOf(21)).environmentId, (await previewOf(22)).environmentId]).toEqual([null, envs[1], null]);
    const left = await db.select({ name: environment.name }).from(environment).where(eq(environment.projectId, o.projectId)).orderBy(environment.name);
    expect(left.map((e) => e.name)).toEqual(["pr-21", "production"]);
    // The project's settings go (as when its base environment is deleted): its previews close and their environments go.
    await db.delete(previewSettings).where(eq(previewSettings.projectId, o.projectId));
    await controller.reconcile("preview-sweep");
    await converge();
    expect(await previewOf(21)).toMatchObject({ state: "closed", environmentId: null, message: expect.stringContaining("no longer set up") });
  });
});
