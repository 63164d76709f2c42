import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { createApiToken } from "@levelrail/auth";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { build, gitSource, preview } from "@levelrail/db/schema/git";
import { createApp } from "@levelrail/services/app/app";
import { hmacHex } from "@levelrail/services/git-hook/signature";
import { createService } from "@levelrail/services/service/write";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedMember, seedOrg, testKit } from "@levelrail/testkit/seed";

vi.mock("server-only", () => ({}));
vi.mock("@/lib/api", async () => await import("../api"));
vi.mock("@/lib/server", async () => await import("../server"));
vi.mock("@/lib/request-body", async () => await import("../request-body"));

/**
 * The webhook and preview routes as Next runs them: the webhook answers without a session or token,
 * from the raw body's signature; the previews route under the `route()` wrapper. Answers are checked
 * against the OpenAPI document's schemas.
 */
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let dataDir: string;
let token: string;
let seeded: Awaited<ReturnType<typeof seedOrg>>;
let sourceId: string;
let serviceId: string;
let checker: ReturnType<typeof import("./testing").schemaChecker>;
const SECRET = `whsec-${randomBytes(12).toString("hex")}`;
const BASE = "http://127.0.0.1:4300";
const B = "b".repeat(40);

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "hookroute");
  ({ db, sql } = createDb(database.url));
  dataDir = mkdtempSync(join(tmpdir(), "lrpv-hooks-"));
  const kit = testKit();
  process.env.DATABASE_URL = database.url;
  process.env.LEVELRAIL_DATA_DIR = dataDir;
  process.env.LEVELRAIL_MASTER_KEY = kit.masterKey;
  seeded = await seedOrg(db, "hookroute", kit);
  token = await createApiToken(db, seeded.actor.email, "hooks");
  await createApp({ ctx: seeded, envId: seeded.envId, input: { name: "shop" } });
  serviceId = (await createService({ ctx: seeded, envId: seeded.envId, input: { name: "web", app: "shop", image: "registry.example.com/shop:1", port: 8080 } })).id;
  const [src] = await db.insert(gitSource).values({ orgId: seeded.orgId, serviceId, url: "https://gitea.example.com/acme/shop.git", ref: "main", webhookSecretSealed: kit.keyring.seal(SECRET) }).returning();
  sourceId = src!.id;
  const { openApiDocument } = await import("./document");
  const { schemaChecker } = await import("./testing");
  checker = schemaChecker(openApiDocument());
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function post(headers: Record<string, string>, body: BodyInit) {
  const { POST } = await import("../../app/api/v1/hooks/git/[sourceId]/route");
  const res = await POST(new Request(`${BASE}/api/v1/hooks/git/${sourceId}`, { method: "POST", headers, body }), { params: Promise.resolve({ sourceId }) });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as unknown };
}

describe("POST /api/v1/hooks/git/{sourceId}", () => {
  it("takes a Gitea push signed with the source's secret, without a session or token", async () => {
    const body = JSON.stringify({ ref: "refs/heads/main", before: "a".repeat(40), after: B });
    const res = await post({ "content-type": "application/json", "x-gitea-event": "push", "x-gitea-delivery": "r-1", "x-gitea-signature": hmacHex(SECRET, Buffer.from(body)) }, body);
    expect(res.status).toBe(202);
    expect(checker.check("POST", "/api/v1/hooks/git/{sourceId}", 202, res.body)).toEqual([]);
    expect((await db.select().from(build).where(eq(build.serviceId, serviceId))).map((b) => [b.commit, b.trigger])).toEqual([[B, "push"]]);
  });

  it("a wrong signature is a 401 with the error shape and no secret; an oversized body a 413", async () => {
    const body = JSON.stringify({ ref: "refs/heads/main", after: B });
    const res = await post({ "x-gitea-event": "push", "x-gitea-delivery": "r-2", "x-gitea-signature": hmacHex("guess", Buffer.from(body)) }, body);
    expect(res.status).toBe(401);
    expect(checker.check("POST", "/api/v1/hooks/git/{sourceId}", 401, res.body)).toEqual([]);
    expect(res.text).not.toContain(SECRET);
    const big = await post({ "x-gitea-event": "push", "content-length": String(2 * 1024 * 1024) }, "x".repeat(2 * 1024 * 1024));
    expect(big.status).toBe(413);
    expect((await db.select().from(build).where(eq(build.serviceId, serviceId))).length).toBe(1);
  });
});

describe("GET/PUT /api/v1/projects/{id}/previews", () => {
  it("sets and reads the settings; a domain outside the base domains is a 400 naming it", async () => {
    const route = await import("../../app/api/v1/projects/[id]/previews/route");
    const call = async (method: "GET" | "PUT", body?: unknown) => {
      const req = new Request(`${BASE}/api/v1/projects/${seeded.projectId}/previews`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const res = await (method === "GET" ? route.GET : route.PUT)(req, { params: Promise.resolve({ id: seeded.projectId }) });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    const put = await call("PUT", { baseEnvironmentId: seeded.envId, domain: "pr.localhost", max: 2, ttlHours: 12 });
    expect(put.status).toBe(200);
    expect(checker.check("PUT", "/api/v1/projects/{id}/previews", 200, put.body)).toEqual([]);
    const got = await call("GET");
    expect(got.body).toMatchObject({ settings: { domain: "pr.localhost", max: 2, ttlHours: 12 }, previews: [] });
    const bad = await call("PUT", { baseEnvironmentId: seeded.envId, domain: "preview.example.org" });
    expect(bad).toMatchObject({ status: 400, body: { error: { field: "domain" } } });
  });
});

describe("a fork's pull request over HTTP, from each forge", () => {
  const REPO = { id: 1, full_name: "acme/shop" };
  const FORK = { id: 2, full_name: "mallory/shop" };
  /** The forge's own payload shape, headers and signature; `fork`: the head is in another repository. */
  function delivery(forge: "github" | "gitea" | "gitlab", number: number, fork: boolean): { headers: Record<string, string>; body: string } {
    const head = fork ? FORK : REPO;
    const id = `${forge}-${number}`;
    if (forge === "gitlab") {
      const body = JSON.stringify({
        object_kind: "merge_request",
        project: { id: REPO.id, path_with_namespace: REPO.full_name },
        object_attributes: { iid: number, action: "open", source_branch: "topic", target_branch: "main", source_project_id: head.id, target_project_id: REPO.id, last_commit: { id: B } },
      });
      return { headers: { "content-type": "application/json", "x-gitlab-event": "Merge Request Hook", "x-gitlab-token": SECRET, "x-gitlab-event-uuid": id }, body };
    }
    const body = JSON.stringify({
      action: "opened",
      number,
      pull_request: { number, ...(forge === "github" ? { author_association: fork ? "CONTRIBUTOR" : "MEMBER" } : {}), head: { ref: "topic", sha: B, repo: head }, base: { ref: "main", repo: REPO } },
      repository: REPO,
    });
    const signed = hmacHex(SECRET, Buffer.from(body));
    return forge === "gitea"
      ? { headers: { "content-type": "application/json", "x-gitea-event": "pull_request", "x-github-event": "pull_request", "x-gitea-delivery": id, "x-gitea-signature": signed }, body }
      : { headers: { "content-type": "application/json", "x-github-event": "pull_request", "x-github-delivery": id, "x-hub-signature-256": `sha256=${signed}` }, body };
  }

  it("a fork's preview answers awaiting approval, the same repository's not; approving is a developer's, answered as the document says", async () => {
    const { putPreviewSettings } = await import("@levelrail/services/preview/settings");
    await putPreviewSettings({ ctx: { ...seeded, baseDomains: [] }, projectId: seeded.projectId, input: { baseEnvironmentId: seeded.envId, domain: "pr.localhost", max: 10, ttlHours: 12 } });
    const forges = ["github", "gitea", "gitlab"] as const;
    for (const [i, forge] of forges.entries()) {
      const fork = await post(delivery(forge, 50 + i, true).headers, delivery(forge, 50 + i, true).body);
      expect(fork.status, forge).toBe(202);
      expect(fork.body, forge).toMatchObject({ preview: { number: 50 + i, approval: "awaiting" } });
      const same = await post(delivery(forge, 60 + i, false).headers, delivery(forge, 60 + i, false).body);
      // Gitea never says who the author is (an AGit request names the base as its head repository): every request of it waits.
      expect(same.body, forge).toMatchObject({ preview: { number: 60 + i, approval: forge === "gitea" ? "awaiting" : "not-needed" } });
    }
    const rows = await db.select().from(preview).where(eq(preview.projectId, seeded.projectId));
    expect(rows.filter((r) => r.fork).map((r) => r.number).sort()).toEqual([50, 51, 52]);

    const target = rows.find((r) => r.number === 50)!;
    const route = await import("../../app/api/v1/projects/[id]/previews/[previewId]/approve/route");
    const approve = async (bearer: string, body: unknown) => {
      const res = await route.POST(
        new Request(`${BASE}/api/v1/projects/${seeded.projectId}/previews/${target.id}/approve`, { method: "POST", headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" }, body: JSON.stringify(body) }),
        { params: Promise.resolve({ id: seeded.projectId, previewId: target.id }) },
      );
      return { status: res.status, body: (await res.json()) as unknown };
    };
    const viewer = await seedMember(db, seeded, "hookroute-viewer", "viewer");
    const refused = await approve(await createApiToken(db, viewer.email, "v"), { commit: B });
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });
    const other = await seedOrg(db, "hookroute-other", seeded.kit);
    expect((await approve(await createApiToken(db, other.actor.email, "o"), { commit: B })).status).toBe(404);
    expect(await approve(token, {})).toMatchObject({ status: 400, body: { error: { field: "commit" } } });
    const ok = await approve(token, { commit: B });
    expect(ok.status).toBe(200);
    expect(checker.check("POST", "/api/v1/projects/{id}/previews/{previewId}/approve", 200, ok.body)).toEqual([]);
    expect(ok.body).toMatchObject({ approval: "approved", approvedCommit: B, approvedBy: seeded.actor.email });
  });
});
