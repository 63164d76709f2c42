import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, count, eq } from "drizzle-orm";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { auditEntry } from "@levelrail/db/schema/audit";
import { build, gitDelivery, gitSource, preview } from "@levelrail/db/schema/git";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";
import { createApp } from "../app/app";
import { putPreviewSettings } from "../preview/settings";
import { createService } from "../service/write";
import { MAX_HOOK_BYTES, receiveGitHook } from "./receive";
import { hmacHex } from "./signature";

/**
 * The webhook verb against a real PostgreSQL: signatures of each provider, a build queued by a push
 * to the tracked branch, nothing written for a wrong signature, a repeated delivery building once,
 * and two webhooks racing for one pull request making one preview.
 */
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let o: Awaited<ReturnType<typeof seedOrg>>;
let sourceId: string;
let serviceId: string;
const SECRET = `whsec-${randomBytes(12).toString("hex")}`;
const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);

const deps = () => ({ db, kit: o.kit });
const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const github = (event: string, body: Uint8Array, delivery: string, secret = SECRET) =>
  new Headers({ "content-type": "application/json", "x-github-event": event, "x-github-delivery": delivery, "x-hub-signature-256": `sha256=${hmacHex(secret, body)}` });
const push = (after: string, ref = "refs/heads/main", before = A) => bytes({ ref, before, after, repository: { full_name: "acme/shop" } });
const REPO = { id: 1296269, full_name: "acme/shop" };
// A member's request from a branch of the repository itself (GitHub's payload shape).
const pr = (action: string, number: number, sha: string, statusesUrl = `http://127.0.0.1:9/repos/acme/shop/statuses/${sha}`) =>
  bytes({ action, number, pull_request: { number, author_association: "MEMBER", statuses_url: statusesUrl, head: { ref: `topic-${number}`, sha, repo: REPO }, base: { ref: "main", repo: REPO } }, repository: REPO });
const hook = (headers: Headers, body: Uint8Array, id = sourceId) => receiveGitHook(deps(), { sourceId: id, headers, body });
const builds = async () => db.select().from(build).where(eq(build.serviceId, serviceId));
const deliveries = async () => (await db.select({ n: count() }).from(gitDelivery).where(eq(gitDelivery.sourceId, sourceId)))[0]!.n;
const refusal = async (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as { code: string; message: string });

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "githooks");
  ({ db, sql } = createDb(database.url));
  o = await seedOrg(db, "githooks");
  await createApp({ ctx: o, envId: o.envId, input: { name: "shop" } });
  const svc = await createService({ ctx: o, envId: o.envId, input: { name: "web", app: "shop", image: "registry.example.com/shop:1", port: 8080, domains: ["shop.localhost"] } });
  serviceId = svc.id;
  const [src] = await db
    .insert(gitSource)
    .values({ orgId: o.orgId, serviceId, url: "https://github.com/acme/shop.git", ref: "main", webhookSecretSealed: o.kit.keyring.seal(SECRET) })
    .returning();
  sourceId = src!.id;
});

afterAll(async () => {
  await sql.end();
  await database.drop();
});

describe("push webhooks", () => {
  it("a push to the tracked branch queues a build that deploys, audited as the webhook", async () => {
    const body = push(B);
    const answer = await hook(github("push", body, "d-push-1"), body);
    expect(answer.status).toBe(202);
    expect(JSON.stringify(answer)).not.toContain(SECRET);
    const [b] = await builds();
    expect(b).toMatchObject({ commit: B, ref: "main", trigger: "push", deploy: true, status: "queued", createdBy: "webhook:github" });
    const [entry] = await db.select().from(auditEntry).where(and(eq(auditEntry.orgId, o.orgId), eq(auditEntry.action, "build.create")));
    expect(entry).toMatchObject({ actorType: "webhook", actorName: "webhook:github", targetName: "web" });
    expect((await db.select().from(gitSource).where(eq(gitSource.id, sourceId)))[0]!.lastSeenCommit).toBe(B);
  });

  it("a wrong or missing signature is a 401 and writes nothing; an unknown source a 404", async () => {
    const before = { builds: (await builds()).length, deliveries: await deliveries() };
    const body = push(C);
    expect(await refusal(hook(github("push", body, "d-bad-1", "not the secret"), body))).toMatchObject({ code: "unauthenticated" });
    const unsigned = new Headers({ "x-github-event": "push", "x-github-delivery": "d-bad-2" });
    expect(await refusal(hook(unsigned, body))).toMatchObject({ code: "unauthenticated" });
    expect(await refusal(hook(new Headers({ "x-gitlab-event": "Push Hook", "x-gitlab-token": "guess" }), body))).toMatchObject({ code: "unauthenticated" });
    expect(await refusal(hook(new Headers({}), body))).toMatchObject({ code: "unauthenticated" });
    expect(await refusal(hook(github("push", body, "d-bad-3"), body, "00000000-0000-4000-8000-000000000000"))).toMatchObject({ code: "not_found" });
    expect(await refusal(hook(github("push", body, "d-bad-4"), body, "not-a-uuid"))).toMatchObject({ code: "not_found" });
    const err = await refusal(hook(github("push", body, "d-bad-5", "x"), body));
    expect(JSON.stringify(err)).not.toContain(SECRET);
    expect({ builds: (await builds()).length, deliveries: await deliveries() }).toEqual(before);
  });

  it("a repeated delivery builds once, also when both arrive at once", async () => {
    const before = (await builds()).length;
    const body = push(C);
    const [x, y] = await Promise.all([hook(github("push", body, "d-dup"), body), hook(github("push", body, "d-dup"), body)]);
    expect([x.status, y.status].sort()).toEqual([200, 202]);
    const again = await hook(github("push", body, "d-dup"), body);
    expect(again).toEqual({ status: 200, body: { duplicate: true, delivery: "d-dup" } });
    expect((await builds()).length).toBe(before + 1);
    // The earlier queued build is superseded by the newer one, never dropped silently.
    const rows = await builds();
    expect(rows.filter((b) => b.status === "queued").map((b) => b.commit)).toEqual([C]);
  });

  it("other branches, deletions, tags and pings are acknowledged and ignored, saying why", async () => {
    const before = (await builds()).length;
    const other = push(B, "refs/heads/feature");
    expect((await hook(github("push", other, "d-o1"), other)).body).toMatchObject({ ignored: true, reason: expect.stringContaining("not the tracked branch") });
    const deleted = bytes({ ref: "refs/heads/main", before: B, after: "0".repeat(40), deleted: true });
    expect((await hook(github("push", deleted, "d-o2"), deleted)).body).toMatchObject({ ignored: true, reason: expect.stringContaining("deleted") });
    const ping = bytes({ zen: "Design for failure.", hook_id: 1 });
    expect(await hook(github("ping", ping, "d-o3"), ping)).toEqual({ status: 200, body: { ok: true, event: "ping" } });
    const gitlabTag = bytes({ object_kind: "tag_push", ref: "refs/tags/v1", before: "0".repeat(40), after: B });
    const answer = await hook(new Headers({ "x-gitlab-event": "Tag Push Hook", "x-gitlab-token": SECRET, "x-gitlab-event-uuid": "u-tag" }), gitlabTag);
    expect(answer.body).toMatchObject({ ignored: true });
    expect((await builds()).length).toBe(before);
  });

  it("Gitea and GitLab pushes build like GitHub's; a body over 1 MiB is a 413", async () => {
    const before = (await builds()).length;
    // Each continues from the branch's last pushed commit (C, then A): a force-push back to A is taken.
    const gitea = push(A, "refs/heads/main", C);
    expect((await hook(new Headers({ "x-gitea-event": "push", "x-github-event": "push", "x-gitea-delivery": "g-1", "x-gitea-signature": hmacHex(SECRET, gitea) }), gitea)).status).toBe(202);
    const gitlab = bytes({ object_kind: "push", ref: "refs/heads/main", before: A, after: B, checkout_sha: B });
    const answer = await hook(new Headers({ "x-gitlab-event": "Push Hook", "x-gitlab-token": SECRET, "x-gitlab-event-uuid": "l-1" }), gitlab);
    expect(answer.status).toBe(202);
    const rows = await builds();
    expect(rows.length).toBe(before + 2);
    expect(rows.find((b) => b.createdBy === "webhook:gitlab")).toMatchObject({ commit: B });
    const big = new Uint8Array(MAX_HOOK_BYTES + 1);
    expect(await refusal(hook(github("push", big, "d-big"), big))).toMatchObject({ code: "too_large" });
  });
});

describe("pull request webhooks", () => {
  it("is ignored while the project has no preview settings", async () => {
    const body = pr("opened", 1, B);
    expect((await hook(github("pull_request", body, "p-0"), body)).body).toMatchObject({ ignored: true, reason: expect.stringContaining("not set up") });
  });

  it("two webhooks racing for one request make one preview; over the maximum a preview is refused and says so", async () => {
    await putPreviewSettings({ ctx: { ...o, baseDomains: [] }, projectId: o.projectId, input: { baseEnvironmentId: o.envId, domain: "preview.localhost", max: 1, ttlHours: 24 } });
    // The same request's events racing: two services built from the repository each have a webhook
    // (two sources), and the provider sends a new commit's event at the same moment.
    const other = await createService({ ctx: o, envId: o.envId, input: { name: "worker", app: "shop", image: "registry.example.com/shop:1", port: 8080 } });
    const [second] = await db
      .insert(gitSource)
      .values({ orgId: o.orgId, serviceId: other.id, url: "git@github.com:acme/shop.git", ref: "main", webhookSecretSealed: o.kit.keyring.seal(SECRET) })
      .returning();
    const opened = pr("opened", 12, B);
    const sync = pr("synchronize", 12, B);
    const answers = await Promise.all([
      hook(github("pull_request", opened, "p-1"), opened),
      hook(github("pull_request", opened, "p-1"), opened, second!.id),
      hook(github("pull_request", opened, "p-1b"), opened),
      hook(github("pull_request", sync, "p-2"), sync),
    ]);
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202]);
    const rows = await db.select().from(preview).where(eq(preview.projectId, o.projectId));
    expect(rows).toHaveLength(1);
    // No provider API on the source: no status is posted anywhere (the payload's statuses_url is not followed).
    expect(rows[0]).toMatchObject({ number: 12, state: "open", headCommit: B, headRef: "topic-12", repo: "github.com/acme/shop", statusUrl: null, fork: false, outsider: false });

    const thirteen = pr("opened", 13, C);
    const refused = await hook(github("pull_request", thirteen, "p-3"), thirteen);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: "quota_exceeded" }, preview: { number: 13, state: "refused" } });
    const [row13] = await db.select().from(preview).where(and(eq(preview.projectId, o.projectId), eq(preview.number, 13)));
    expect(row13!.message).toContain("maximum (1)");

    const closed = pr("closed", 12, B);
    expect((await hook(github("pull_request", closed, "p-4"), closed)).status).toBe(202);
    const [row12] = await db.select().from(preview).where(and(eq(preview.projectId, o.projectId), eq(preview.number, 12)));
    expect(row12).toMatchObject({ state: "closed" });
    // A place is free: the next event of 13 opens its preview.
    const again = pr("synchronize", 13, C);
    expect((await hook(github("pull_request", again, "p-5"), again)).body).toMatchObject({ preview: { state: "open" } });
    const entries = await db.select({ action: auditEntry.action, actor: auditEntry.actorName }).from(auditEntry).where(and(eq(auditEntry.orgId, o.orgId), eq(auditEntry.targetType, "preview")));
    // One open for request 12 however many raced; the others updated it.
    expect(entries.map((e) => e.action).sort()).toEqual(["preview.close", "preview.open", "preview.open", "preview.refuse", "preview.update", "preview.update", "preview.update"].sort());
    expect(new Set(entries.map((e) => e.actor))).toEqual(new Set(["webhook:github"]));
  });
});

describe("deliveries a developer or an eavesdropper can forge or replay", () => {
  it("a replayed older push under a new delivery id builds nothing and says why; a push continuing the branch is built", async () => {
    const svc = await createService({ ctx: o, envId: o.envId, input: { name: "replayed", app: "shop", image: "registry.example.com/shop:1", port: 8080 } });
    const [src] = await db
      .insert(gitSource)
      .values({ orgId: o.orgId, serviceId: svc.id, url: "https://github.com/acme/replayed.git", ref: "main", webhookSecretSealed: o.kit.keyring.seal(SECRET) })
      .returning();
    const send = (body: Uint8Array, delivery: string) => hook(github("push", body, delivery), body, src!.id);
    const queued = async () => (await db.select().from(build).where(eq(build.serviceId, svc.id))).map((b) => b.commit);
    const first = push(B, "refs/heads/main", A);
    const second = push(C, "refs/heads/main", B);
    expect((await send(first, "r-1")).status).toBe(202);
    expect((await send(second, "r-2")).status).toBe(202);
    expect(await queued()).toEqual([B, C]);
    // The first push captured and sent again as a new delivery: B is behind C.
    const replay = await send(first, "r-1-again");
    expect(replay).toEqual({ status: 200, body: { ignored: true, reason: expect.stringContaining("older than the branch's last pushed commit") } });
    // The last push sent again: C is built already.
    expect((await send(second, "r-2-again")).body).toMatchObject({ ignored: true, reason: expect.stringContaining("already the branch's last pushed commit") });
    expect(await queued()).toEqual([B, C]);
    // A force-push back to B continues from C: taken.
    expect((await send(push(B, "refs/heads/main", C), "r-3")).status).toBe(202);
    expect((await queued()).sort()).toEqual([B, B, C].sort());
  });

  it("a signed pull request whose statuses_url names another host stores no status URL there: only the source's provider API", async () => {
    const svc = await createService({ ctx: o, envId: o.envId, input: { name: "statused", app: "shop", image: "registry.example.com/shop:1", port: 8080 } });
    // The provider API on a closed loopback port: nothing here connects to it.
    const [src] = await db
      .insert(gitSource)
      .values({ orgId: o.orgId, serviceId: svc.id, url: "https://github.com/acme/statused.git", ref: "main", webhookSecretSealed: o.kit.keyring.seal(SECRET), apiProvider: "github", apiUrl: "http://127.0.0.1:9" })
      .returning();
    await putPreviewSettings({ ctx: { ...o, baseDomains: [] }, projectId: o.projectId, input: { baseEnvironmentId: o.envId, domain: "preview.localhost", max: 10, ttlHours: 24 } });
    const body = pr("opened", 77, B, `https://attacker.example/repos/acme/statused/statuses/${B}`);
    expect((await hook(github("pull_request", body, "s-1"), body, src!.id)).status).toBe(202);
    const [row] = await db.select().from(preview).where(and(eq(preview.projectId, o.projectId), eq(preview.number, 77)));
    expect(row!.statusUrl).toBe(`http://127.0.0.1:9/repos/acme/statused/statuses/${B}`);
    const stored = await db.select({ url: preview.statusUrl }).from(preview);
    expect(stored.filter((r) => r.url?.includes("attacker.example"))).toEqual([]);
  });
});
