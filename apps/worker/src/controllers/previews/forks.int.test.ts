import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, inArray } from "drizzle-orm";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { auditEntry } from "@levelrail/db/schema/audit";
import { secret } from "@levelrail/db/schema/config";
import { managedDatabase } from "@levelrail/db/schema/databases";
import { build, gitCredential, gitSource, preview } from "@levelrail/db/schema/git";
import { environment } from "@levelrail/db/schema/orgs";
import { service } from "@levelrail/db/schema/services";
import { createApp } from "@levelrail/services/app/app";
import { createBackupTarget } from "@levelrail/services/config/backup-targets";
import { createRegistryCredential } from "@levelrail/services/config/registry-credentials";
import { createDatabase } from "@levelrail/services/database/write";
import { putSecret } from "@levelrail/services/env/secrets";
import { envTargetOf, pgEnvStores } from "@levelrail/services/env/sources";
import { putTierEnv } from "@levelrail/services/env/vars";
import { createEnvironment, deleteEnvironment } from "@levelrail/services/project/environment";
import { receiveGitHook } from "@levelrail/services/git-hook/receive";
import { hmacHex } from "@levelrail/services/git-hook/signature";
import { approvePreview, isAwaiting } from "@levelrail/services/preview/approval";
import { getProjectPreviews, putPreviewSettings } from "@levelrail/services/preview/settings";
import { createService } from "@levelrail/services/service/write";
import { resolveEnv } from "@levelrail/spec/env";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedMember, seedOrg } from "@levelrail/testkit/seed";
import { previewsController } from "./reconcile";
import { pgPreviewStore, providerStatus } from "./store";

/**
 * Pull requests from forks (and by authors the forge marks as outside the repository), against a real
 * PostgreSQL, with signed deliveries shaped like each forge's own: such a preview builds and clones
 * nothing until a member with deploy rights approves its head commit, one commit at a time, and its
 * environment gets none of the base's secrets, credentials, storage target or database attachments.
 * The environment checked is the one the worker resolves for a service's containers (`resolveEnv` over
 * `pgEnvStores`, what the application controller passes to the engine).
 */
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let o: Awaited<ReturnType<typeof seedOrg>>;
let stranger: Awaited<ReturnType<typeof seedOrg>>;
let developer: Awaited<ReturnType<typeof seedMember>>;
let viewer: Awaited<ReturnType<typeof seedMember>>;
let sourceId: string;
let controller: ReturnType<typeof previewsController>;
const HOOK_SECRET = `whsec-${randomBytes(12).toString("hex")}`;
const API_KEY = `api-key-${randomBytes(12).toString("hex")}`;
const CACHE_PASSWORD = `cache-pw-${randomBytes(12).toString("hex")}`;
const STORAGE_SECRET = `storage-${randomBytes(12).toString("hex")}`;
const GIT_TOKEN = `git-token-${randomBytes(12).toString("hex")}`;
const BASE_SECRETS = [API_KEY, CACHE_PASSWORD, STORAGE_SECRET, GIT_TOKEN];
const B = "b".repeat(40);
const C = "c".repeat(40);
const D = "d".repeat(40);
const BASE_REPO = { id: 1296269, full_name: "acme/shop" };
const FORK_REPO = { id: 4242, full_name: "mallory/shop" };

type Forge = "github" | "gitea" | "gitlab";
const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const delivery = () => randomBytes(8).toString("hex");

/** A pull (merge) request event as the forge sends it: its payload's shape, its headers and its signature. */
function requestEvent(forge: Forge, action: "opened" | "synchronize" | "closed", number: number, sha: string, from: "fork" | "base", author = from === "fork" ? "CONTRIBUTOR" : "MEMBER") {
  const headRepo = from === "fork" ? FORK_REPO : BASE_REPO;
  if (forge === "gitlab") {
    const body = bytes({
      object_kind: "merge_request",
      event_type: "merge_request",
      user: { username: "mallory" },
      project: { id: BASE_REPO.id, path_with_namespace: BASE_REPO.full_name },
      object_attributes: {
        iid: number,
        action: action === "opened" ? "open" : action === "closed" ? "close" : "update",
        ...(action === "synchronize" ? { oldrev: B } : {}),
        state: "opened",
        source_branch: `topic-${number}`,
        target_branch: "main",
        source_project_id: headRepo.id,
        target_project_id: BASE_REPO.id,
        source: { path_with_namespace: headRepo.full_name },
        target: { path_with_namespace: BASE_REPO.full_name },
        last_commit: { id: sha },
      },
    });
    return { body, headers: new Headers({ "content-type": "application/json", "x-gitlab-event": "Merge Request Hook", "x-gitlab-token": HOOK_SECRET, "x-gitlab-event-uuid": delivery() }) };
  }
  const body = bytes({
    action: forge === "gitea" && action === "synchronize" ? "synchronized" : action,
    number,
    pull_request: {
      number,
      ...(forge === "github" ? { author_association: author } : {}),
      head: { ref: `topic-${number}`, sha, ...(forge === "gitea" ? { repo_id: headRepo.id } : {}), repo: headRepo },
      base: { ref: "main", sha: "a".repeat(40), repo: BASE_REPO },
    },
    repository: BASE_REPO,
  });
  if (forge === "gitea") {
    return { body, headers: new Headers({ "content-type": "application/json", "x-gitea-event": "pull_request", "x-github-event": "pull_request", "x-gitea-delivery": delivery(), "x-gitea-signature": hmacHex(HOOK_SECRET, body) }) };
  }
  return { body, headers: new Headers({ "content-type": "application/json", "x-github-event": "pull_request", "x-github-delivery": delivery(), "x-hub-signature-256": `sha256=${hmacHex(HOOK_SECRET, body)}` }) };
}

const send = (e: ReturnType<typeof requestEvent>) => receiveGitHook({ db, kit: o.kit }, { sourceId, headers: e.headers, body: e.body });
const previewOf = async (n: number) => (await db.select().from(preview).where(and(eq(preview.projectId, o.projectId), eq(preview.number, n))))[0]!;
const envNamed = async (name: string) => (await db.select().from(environment).where(and(eq(environment.projectId, o.projectId), eq(environment.name, name))))[0] ?? null;
const servicesIn = async (envId: string) => db.select().from(service).where(eq(service.environmentId, envId)).orderBy(service.name);
const buildsOf = async (envId: string) => {
  const ids = (await servicesIn(envId)).map((s) => s.id);
  return ids.length ? db.select().from(build).where(inArray(build.serviceId, ids)) : [];
};
const converge = () => controller.reconcile("previews");
const refusal = async (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as { code: string; message: string });

/** What the worker would put in each of the environment's service containers, by service name. */
async function containerEnvs(envId: string): Promise<Record<string, Record<string, string>>> {
  const out: Record<string, Record<string, string>> = {};
  for (const s of await servicesIn(envId)) {
    const target = await envTargetOf(db, s.id);
    out[s.name] = Object.fromEntries((await resolveEnv(target!, pgEnvStores(db, o.kit.keyring))).map((e) => [e.key, e.value]));
  }
  return out;
}

// Fork previews of each forge; 40 is a request of the base repository by a member, 41 by an outside author.
const FORKS: [Forge, number][] = [
  ["github", 30],
  ["gitea", 31],
  ["gitlab", 32],
];

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "forks");
  ({ db, sql } = createDb(database.url));
  o = await seedOrg(db, "forks");
  stranger = await seedOrg(db, "forks-other", o.kit);
  developer = await seedMember(db, o, "forks-dev", "developer");
  viewer = await seedMember(db, o, "forks-viewer", "viewer");
  const ctx = { ...o, allowPrivateTargets: true };
  await createApp({ ctx, envId: o.envId, input: { name: "shop" } });
  const target = await createBackupTarget({ ctx, input: { name: "s3", endpoint: "http://127.0.0.1:9", bucket: "shop", region: "us-east-1", accessKey: "AK", secretKey: STORAGE_SECRET } });
  const registry = await createRegistryCredential({ ctx, input: { name: "reg", server: "127.0.0.1:1", username: "u", password: "registry-pw" } });
  await createDatabase({ ctx, envId: o.envId, input: { name: "main", version: "16" } });
  const web = await createService({ ctx, envId: o.envId, input: { name: "web", app: "shop", image: "registry.example.com/shop:1", port: 8080, domains: ["shop.localhost"], env: { PLAIN: "kept" } } });
  await createService({
    ctx,
    envId: o.envId,
    input: {
      name: "cache",
      app: "shop",
      image: "127.0.0.1:1/cache:7",
      port: 6379,
      storageTargetId: target.id,
      registryCredentialId: registry.id,
      databaseEnv: { DATABASE_URL: { from: "main" } },
    },
  });
  await putSecret({ ctx, envId: o.envId, name: "web", key: "API_KEY", input: { value: API_KEY } });
  await putSecret({ ctx, envId: o.envId, name: "cache", key: "CACHE_PASSWORD", input: { value: CACHE_PASSWORD } });
  await putTierEnv({ ctx, tier: "environment", id: o.envId, input: { vars: { REGION: "eu" } } });
  const [cred] = await db.insert(gitCredential).values({ orgId: o.orgId, name: "gh", kind: "token", username: "x-access-token", sealed: o.kit.keyring.seal(GIT_TOKEN) }).returning();
  const [src] = await db
    .insert(gitSource)
    .values({ orgId: o.orgId, serviceId: web.id, url: "https://github.com/acme/shop.git", ref: "main", credentialId: cred!.id, webhookSecretSealed: o.kit.keyring.seal(HOOK_SECRET) })
    .returning();
  sourceId = src!.id;
  await putPreviewSettings({ ctx, projectId: o.projectId, input: { baseEnvironmentId: o.envId, domain: "preview.localhost", max: 10, ttlHours: 24 } });
  const deps = { db, kit: o.kit, baseDomains: [], shortName: "lrfk", runner: "lrfk-test" };
  const call = { policy: { allowPrivate: true }, timeoutMs: 2000 };
  controller = previewsController({ store: pgPreviewStore(deps, call), status: providerStatus(deps, call), now: () => new Date(), log: () => {} });
});

afterAll(async () => {
  await sql.end();
  await database.drop();
});

describe("a fork's pull request", () => {
  it("from each forge waits for approval: no environment is cloned and nothing is built; the base repository's member's request builds at once", async () => {
    for (const [forge, n] of FORKS) {
      const answer = await send(requestEvent(forge, "opened", n, B, "fork"));
      expect(answer.status, forge).toBe(202);
      expect(answer.body, forge).toMatchObject({ provider: forge, preview: { number: n, state: "open", approval: "awaiting", message: expect.stringContaining("awaiting approval: the request comes from a fork") } });
      expect(await previewOf(n), forge).toMatchObject({ fork: true, outsider: true, approvedCommit: null });
    }
    // An outside author on GitHub, from a branch of the base repository itself: not trusted either.
    expect((await send(requestEvent("github", "opened", 41, B, "base", "FIRST_TIME_CONTRIBUTOR"))).body).toMatchObject({ preview: { approval: "awaiting" } });
    expect(await previewOf(41)).toMatchObject({ fork: false, outsider: true });
    // A member's request from the base repository, on GitHub and GitLab: nothing to approve.
    for (const [forge, n] of [["github", 40], ["gitlab", 43]] as const) {
      expect((await send(requestEvent(forge, "opened", n, B, "base"))).body, forge).toMatchObject({ preview: { approval: "not-needed" } });
    }
    // Gitea never says who the author is, and an AGit request (anyone with read access) names the base as its head repository: it waits too.
    expect((await send(requestEvent("gitea", "opened", 42, B, "base"))).body).toMatchObject({ preview: { approval: "awaiting" } });
    expect(await previewOf(42)).toMatchObject({ fork: false, outsider: true });
    await converge();
    await converge();
    for (const n of [30, 31, 32, 41, 42]) {
      const p = await previewOf(n);
      expect(p, `#${n}`).toMatchObject({ environmentId: null, builtCommit: null, withheld: null });
      expect(p.message).toContain("awaiting approval");
      expect(await envNamed(`pr-${n}`), `#${n}`).toBeNull();
    }
    // The trusted ones are cloned with the base's secrets (the clone as it always was) and built.
    for (const n of [40, 43]) {
      const p = await previewOf(n);
      expect(p, `#${n}`).toMatchObject({ builtCommit: B, withheld: null });
      expect((await buildsOf(p.environmentId!)).map((b) => b.commit)).toEqual([B]);
      expect((await containerEnvs(p.environmentId!)).web).toMatchObject({ API_KEY });
    }
    const { previews } = await getProjectPreviews({ ctx: viewer, projectId: o.projectId });
    expect(previews.find((p) => p.number === 30)).toMatchObject({ fork: true, approval: "awaiting", environmentId: null, withheld: [] });
  });

  it("takes no place under the project's maximum while it waits; approving one past the maximum is refused", async () => {
    const settings = (max: number) => putPreviewSettings({ ctx: o, projectId: o.projectId, input: { baseEnvironmentId: o.envId, domain: "preview.localhost", max, ttlHours: 24 } });
    // Two trusted previews hold places (40, 43); five wait (30, 31, 32, 41, 42).
    await settings(2);
    expect((await send(requestEvent("github", "opened", 35, B, "fork"))).body).toMatchObject({ preview: { state: "open", approval: "awaiting" } });
    expect(await refusal(approvePreview({ ctx: developer, projectId: o.projectId, previewId: (await previewOf(35)).id, input: { commit: B } }))).toMatchObject({ code: "quota_exceeded" });
    expect(await previewOf(35)).toMatchObject({ approvedCommit: null });
    await settings(10);
  });

  it("is approved only by a member with deploy rights, for the head commit shown; audited", async () => {
    const p = await previewOf(30);
    const approve = (ctx: Parameters<typeof approvePreview>[0]["ctx"], commit = B, projectId = o.projectId, previewId = p.id) => approvePreview({ ctx, projectId, previewId, input: { commit } });
    expect(await refusal(approve(viewer))).toMatchObject({ code: "forbidden", message: expect.stringContaining("developer") });
    expect(await refusal(approve(stranger))).toMatchObject({ code: "not_found" });
    // The stranger's own project does not reach it either.
    expect(await refusal(approve(stranger, B, stranger.projectId))).toMatchObject({ code: "not_found" });
    expect(await refusal(approve(developer, C))).toMatchObject({ code: "conflict", field: "commit" });
    expect(await refusal(approvePreview({ ctx: developer, projectId: o.projectId, previewId: p.id, input: {} }))).toMatchObject({ code: "invalid_input", field: "commit" });
    expect(await refusal(approve(developer, B, o.projectId, (await previewOf(40)).id))).toMatchObject({ code: "conflict" });
    expect(await previewOf(30)).toMatchObject({ approvedCommit: null });
    const view = await approve(developer);
    expect(view).toMatchObject({ id: p.id, approval: "approved", approvedCommit: B, approvedBy: developer.email });
    const entries = await db.select().from(auditEntry).where(and(eq(auditEntry.orgId, o.orgId), eq(auditEntry.action, "preview.approve")));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actorName: developer.email, targetType: "preview", targetId: p.id, targetName: "#30" });
    for (const [, n] of FORKS.slice(1)) await approve(developer, B, o.projectId, (await previewOf(n)).id);
  });

  it("once approved, is cloned and built, and its services' environment holds none of the base's secrets, credentials, storage target or database attachment", async () => {
    await converge();
    await converge();
    for (const [forge, n] of FORKS) {
      const p = await previewOf(n);
      expect(p.environmentId, forge).not.toBeNull();
      expect(p.builtCommit, forge).toBe(B);
      expect((await buildsOf(p.environmentId!)).map((b) => [b.commit, b.trigger])).toEqual([[B, "preview"]]);
      expect(p.withheld).toEqual([
        { service: "cache", key: "DATABASE_URL", kind: "database" },
        { service: "cache", key: "registryCredentialId", kind: "registry-credential" },
        { service: "cache", key: "CACHE_PASSWORD", kind: "secret" },
        { service: "cache", key: "S3_*", kind: "storage" },
        { service: "web", key: "credentialId", kind: "git-credential" },
        { service: "web", key: "API_KEY", kind: "secret" },
      ]);
      expect(p.message).toContain("without the base's secrets");
      const envs = await containerEnvs(p.environmentId!);
      // Configuration stays: the service's own env and the environment tier.
      expect(envs.web).toEqual({ PLAIN: "kept", REGION: "eu" });
      expect(envs.cache).toEqual({ REGION: "eu" });
      const text = JSON.stringify(envs);
      for (const s of BASE_SECRETS) expect(text).not.toContain(s);
      const svcs = await servicesIn(p.environmentId!);
      expect(svcs.map((s) => [s.name, s.storageTargetId, s.registryCredentialId, s.databaseEnv])).toEqual([
        ["cache", null, null, {}],
        ["web", null, null, {}],
      ]);
      expect(await db.select().from(secret).where(inArray(secret.serviceId, svcs.map((s) => s.id)))).toEqual([]);
      expect(await db.select().from(managedDatabase).where(eq(managedDatabase.environmentId, p.environmentId!))).toEqual([]);
      const sources = await db.select().from(gitSource).where(inArray(gitSource.serviceId, svcs.map((s) => s.id)));
      expect(sources.map((s) => [s.credentialId, s.apiCredentialId])).toEqual([[null, null]]);
    }
    // The base keeps everything.
    expect((await containerEnvs(o.envId)).web).toMatchObject({ API_KEY });
    const { previews } = await getProjectPreviews({ ctx: viewer, projectId: o.projectId });
    expect(previews.find((p) => p.number === 30)!.withheld.map((w) => w.key)).toContain("API_KEY");
    expect(JSON.stringify(previews)).not.toContain(API_KEY);
  });

  it("never takes over an environment of its name that its own clone did not make (one cloned with the base's secrets)", async () => {
    const made = await createEnvironment({ ctx: o, projectId: o.projectId, input: { name: "pr-36", from: o.envId } });
    await send(requestEvent("github", "opened", 36, B, "fork"));
    await approvePreview({ ctx: developer, projectId: o.projectId, previewId: (await previewOf(36)).id, input: { commit: B } });
    await converge();
    const p = await previewOf(36);
    expect(p).toMatchObject({ environmentId: null, builtCommit: null, withheld: null });
    expect(p.message).toContain("was not cloned for this request");
    expect(await buildsOf(made.id)).toEqual([]);
  });

  it("whose environment was deleted never takes over a pr-<n> cloned later with secrets (a member's clone, another repository's request)", async () => {
    await send(requestEvent("github", "opened", 39, B, "fork"));
    await approvePreview({ ctx: developer, projectId: o.projectId, previewId: (await previewOf(39)).id, input: { commit: B } });
    await converge();
    const first = await previewOf(39);
    expect(first.environmentId).not.toBeNull();
    expect(first.withheld?.length).toBeGreaterThan(0);
    // A member deletes the preview's environment; the request stays open (the foreign key sets environment_id null).
    await deleteEnvironment({ ctx: o, envId: first.environmentId!, dropData: true });
    await send(requestEvent("github", "synchronize", 39, C, "fork"));
    // A pr-39 with the base's secrets appears, then the new head commit is approved.
    const made = await createEnvironment({ ctx: o, projectId: o.projectId, input: { name: "pr-39", from: o.envId } });
    await approvePreview({ ctx: developer, projectId: o.projectId, previewId: first.id, input: { commit: C } });
    await converge();
    await converge();
    const p = await previewOf(39);
    expect(p).toMatchObject({ environmentId: null, builtCommit: B });
    expect(p.message).toContain("was not cloned for this request");
    expect(await buildsOf(made.id)).toEqual([]);
    // Deleted, the member's environment makes room: the preview is cloned again without secrets and built.
    await deleteEnvironment({ ctx: o, envId: made.id, dropData: true });
    await converge();
    await converge();
    const again = await previewOf(39);
    expect(again).toMatchObject({ builtCommit: C, clonedEnvironmentId: again.environmentId });
    expect(again.withheld?.map((w) => w.key)).toContain("API_KEY");
    expect(JSON.stringify(await containerEnvs(again.environmentId!))).not.toContain(API_KEY);
  });

  it("never takes over the environment of another preview of its number (another repository's request)", async () => {
    const other = await previewOf(40);
    // Another repository's request #40 in the project (a member's, trusted): the pr-40 there is the first one's preview's.
    const [row] = await db.insert(preview).values({ orgId: o.orgId, projectId: o.projectId, repo: "github.com/acme/other", number: 40, headRef: "x", headCommit: B }).returning();
    await converge();
    const p = (await db.select().from(preview).where(eq(preview.id, row!.id)))[0]!;
    expect(p).toMatchObject({ environmentId: null, builtCommit: null });
    expect(p.message).toContain("was not cloned for this request");
    expect((await db.select().from(preview).where(eq(preview.id, other.id)))[0]).toMatchObject({ environmentId: other.environmentId });
    await db.delete(preview).where(eq(preview.id, row!.id));
  });

  it("a replayed request delivery (a new delivery id, an older updated_at) neither reopens a closed preview nor closes a live one", async () => {
    const event = (action: string, number: number, sha: string, at: string) => {
      const body = bytes({ action, number, pull_request: { number, author_association: "MEMBER", updated_at: at, head: { ref: `topic-${number}`, sha, repo: BASE_REPO }, base: { ref: "main", repo: BASE_REPO } }, repository: BASE_REPO });
      return { body, headers: new Headers({ "content-type": "application/json", "x-github-event": "pull_request", "x-github-delivery": delivery(), "x-hub-signature-256": `sha256=${hmacHex(HOOK_SECRET, body)}` }) };
    };
    const opened = event("opened", 44, B, "2026-12-01T10:00:00Z");
    await send(opened);
    await converge();
    const envId = (await previewOf(44)).environmentId!;
    expect((await buildsOf(envId)).map((b) => b.commit)).toEqual([B]);
    await send(event("closed", 44, C, "2026-12-01T11:00:00Z"));
    await converge();
    expect(await previewOf(44)).toMatchObject({ state: "closed", environmentId: null });
    // The captured opened delivery, sent again under a new delivery id (GitHub's id is not signed).
    const replay = await receiveGitHook({ db, kit: o.kit }, { sourceId, headers: new Headers({ ...Object.fromEntries(opened.headers), "x-github-delivery": delivery() }), body: opened.body });
    expect(replay).toMatchObject({ status: 200, body: { ignored: true, reason: expect.stringContaining("an earlier delivery sent again") } });
    await converge();
    expect(await previewOf(44)).toMatchObject({ state: "closed", environmentId: null });
    expect(await envNamed("pr-44")).toBeNull();
    // A live preview: an old closed delivery sent again after the request was reopened closes nothing.
    const closed = event("closed", 45, B, "2026-12-01T10:30:00Z");
    await send(event("opened", 45, B, "2026-12-01T10:00:00Z"));
    await send(closed);
    await send(event("reopened", 45, C, "2026-12-01T12:00:00Z"));
    expect((await send({ ...closed, headers: new Headers({ ...Object.fromEntries(closed.headers), "x-github-delivery": delivery() }) })).body).toMatchObject({ ignored: true });
    expect(await previewOf(45)).toMatchObject({ state: "open", headCommit: C, lastEventAt: new Date("2026-12-01T12:00:00Z") });
    // An event the forge stamped later is taken.
    await send(event("synchronize", 45, D, "2026-12-01T13:00:00Z"));
    expect(await previewOf(45)).toMatchObject({ state: "open", headCommit: D });
  });

  it("at most 50 requests of a project wait for approval: a further one is recorded refused, saying so, and a later event tries again", async () => {
    const waitingNow = async () => (await db.select().from(preview).where(and(eq(preview.projectId, o.projectId), eq(preview.state, "open")))).filter((r) => isAwaiting(r) && !r.environmentId).length;
    const fill = 50 - (await waitingNow());
    const filler = await db
      .insert(preview)
      .values(Array.from({ length: fill }, (_, i) => ({ orgId: o.orgId, projectId: o.projectId, repo: "github.com/acme/filler", number: 1000 + i, headRef: "x", headCommit: B, fork: true, outsider: true })))
      .returning({ id: preview.id });
    try {
      const answer = await send(requestEvent("github", "opened", 99, B, "fork"));
      expect(answer).toMatchObject({ status: 409, body: { preview: { state: "refused" }, error: { code: "quota_exceeded", message: expect.stringContaining("50 requests waiting for approval, at most 50") } } });
      expect(await previewOf(99)).toMatchObject({ state: "refused", environmentId: null });
    } finally {
      await db.delete(preview).where(inArray(preview.id, filler.map((f) => f.id)));
    }
    expect((await send(requestEvent("github", "synchronize", 99, C, "fork"))).body).toMatchObject({ preview: { state: "open", approval: "awaiting" } });
  });

  it("its cloned git source does not poll the base repository (a branch named like the fork's head would deploy unapproved)", async () => {
    await db.update(gitSource).set({ pollIntervalSeconds: 60 }).where(eq(gitSource.id, sourceId));
    try {
      await send(requestEvent("github", "opened", 37, B, "fork"));
      await approvePreview({ ctx: developer, projectId: o.projectId, previewId: (await previewOf(37)).id, input: { commit: B } });
      await converge();
      const p = await previewOf(37);
      expect(p.environmentId).not.toBeNull();
      const svcs = await servicesIn(p.environmentId!);
      const sources = await db.select().from(gitSource).where(inArray(gitSource.serviceId, svcs.map((s) => s.id)));
      expect(sources.map((s) => [s.ref, s.pollIntervalSeconds])).toEqual([["topic-37", null]]);
    } finally {
      await db.update(gitSource).set({ pollIntervalSeconds: null }).where(eq(gitSource.id, sourceId));
    }
  });

  it("reopened, waits for a new approval, even of the commit approved before it was closed", async () => {
    await send(requestEvent("github", "opened", 38, B, "fork"));
    await approvePreview({ ctx: developer, projectId: o.projectId, previewId: (await previewOf(38)).id, input: { commit: B } });
    await send(requestEvent("github", "closed", 38, B, "fork"));
    await converge();
    expect(await previewOf(38)).toMatchObject({ state: "closed", environmentId: null });
    expect((await send(requestEvent("github", "opened", 38, B, "fork"))).body).toMatchObject({ preview: { state: "open", approval: "awaiting" } });
    expect(await previewOf(38)).toMatchObject({ approvedCommit: null, approvedBy: null });
    await converge();
    expect(await previewOf(38)).toMatchObject({ environmentId: null, builtCommit: null });
    expect(await envNamed("pr-38")).toBeNull();
  });

  it("a new head commit waits for a new approval: nothing of it is built until then", async () => {
    const envId = (await previewOf(31)).environmentId!;
    expect((await send(requestEvent("gitea", "synchronize", 31, C, "fork"))).body).toMatchObject({ preview: { headCommit: C, approval: "awaiting" } });
    await converge();
    expect(await previewOf(31)).toMatchObject({ environmentId: envId, builtCommit: B, approvedCommit: B });
    expect((await buildsOf(envId)).map((b) => b.commit)).toEqual([B]);
    await approvePreview({ ctx: developer, projectId: o.projectId, previewId: (await previewOf(31)).id, input: { commit: C } });
    await converge();
    expect(await previewOf(31)).toMatchObject({ builtCommit: C });
    expect((await buildsOf(envId)).map((b) => b.commit).sort()).toEqual([B, C]);
    // A member's request from the base repository follows new commits without approval.
    await send(requestEvent("gitlab", "synchronize", 43, D, "base"));
    await converge();
    expect(await previewOf(43)).toMatchObject({ builtCommit: D });
  });
});
