import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApiToken } from "@levelrail/auth";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { createApp } from "@levelrail/services/app/app";
import { createBackupTarget } from "@levelrail/services/config/backup-targets";
import { createRegistryCredential } from "@levelrail/services/config/registry-credentials";
import { putSecret } from "@levelrail/services/env/secrets";
import { createService } from "@levelrail/services/service/write";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";

// The route handlers as Next runs them, in this process: `server-only` is Next's build-time guard,
// and `@/` is the web app's path alias (Next resolves it; here each is the module it names).
vi.mock("server-only", () => ({}));
vi.mock("@/lib/api", async () => await import("../api"));
vi.mock("@/lib/etag", async () => await import("../etag"));
vi.mock("@/lib/server", async () => await import("../server"));
vi.mock("@/lib/tier-env", async () => await import("../tier-env"));
vi.mock("@/lib/moved", async () => await import("../moved"));
vi.mock("@/lib/openapi/document", async () => await import("./document"));

/**
 * Real answers of the API's route handlers (the `route()` wrapper, its auth and error mapping, the
 * verbs on a real PostgreSQL) checked against the OpenAPI document's response schemas with Ajv.
 */
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let dataDir: string;
let token: string;
let seeded: Awaited<ReturnType<typeof seedOrg>>;
let checker: ReturnType<typeof import("./testing").schemaChecker>;

const BASE = "http://127.0.0.1:3800";
type Handler<P> = (req: Request, route: { params: Promise<P> }) => Promise<Response> | Response;

async function call<P>(handler: Handler<P>, path: string, params: P, init: RequestInit & { auth?: boolean } = {}) {
  const { auth = true, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (auth) headers.set("authorization", `Bearer ${token}`);
  if (rest.body !== undefined) headers.set("content-type", "application/json");
  const res = await handler(new Request(`${BASE}${path}`, { ...rest, headers }), { params: Promise.resolve(params) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
}

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "openapi");
  ({ db, sql } = createDb(database.url));
  dataDir = mkdtempSync(join(tmpdir(), "lroa-openapi-"));
  // What server() reads at the first request.
  process.env.DATABASE_URL = database.url;
  process.env.LEVELRAIL_DATA_DIR = dataDir;
  process.env.LEVELRAIL_MASTER_KEY = randomBytes(32).toString("base64");
  seeded = await seedOrg(db, "openapi");
  token = await createApiToken(db, seeded.actor.email, "openapi");
  await createApp({ ctx: seeded, envId: seeded.envId, input: { name: "shop" } });
  await createService({ ctx: seeded, envId: seeded.envId, input: { name: "web", app: "shop", image: "registry.example.com/shop:1.4.2", port: 8080, domains: ["shop.localhost"], env: { LOG_LEVEL: "info" } } });
  await putSecret({ ctx: seeded, envId: seeded.envId, name: "web", key: "API_KEY", input: { value: "a-secret-value" } });
  // Stored only (nothing connects to them here): the lists then answer one each, secrets write-only.
  await createBackupTarget({ ctx: seeded, input: { name: "s3", endpoint: "https://s3.example.test", bucket: "b", region: "r", accessKey: "a", secretKey: "a-secret-value" } });
  await createRegistryCredential({ ctx: seeded, input: { name: "reg", server: "registry.example.test", username: "u", password: "a-secret-value" } });
  const { openApiDocument } = await import("./document");
  const { schemaChecker } = await import("./testing");
  checker = schemaChecker(openApiDocument());
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("real answers match the document's response schemas", () => {
  it("lists projects; gets a project, an environment, its apps, a service and its status", async () => {
    const projects = await import("../../app/api/v1/projects/route");
    const project = await import("../../app/api/v1/projects/[id]/route");
    const environment = await import("../../app/api/v1/environments/[envId]/route");
    const apps = await import("../../app/api/v1/environments/[envId]/apps/route");
    const service = await import("../../app/api/v1/environments/[envId]/services/[service]/route");
    const status = await import("../../app/api/v1/environments/[envId]/services/[service]/status/route");
    const E = `/api/v1/environments/${seeded.envId}`;
    const web = { envId: seeded.envId, service: "web" };
    const cases: [string, () => ReturnType<typeof call>][] = [
      ["/api/v1/projects", () => call(projects.GET, "/api/v1/projects", {})],
      ["/api/v1/projects/{id}", () => call(project.GET, `/api/v1/projects/${seeded.projectId}`, { id: seeded.projectId })],
      ["/api/v1/environments/{envId}", () => call(environment.GET, E, { envId: seeded.envId })],
      ["/api/v1/environments/{envId}/apps", () => call(apps.GET, `${E}/apps`, { envId: seeded.envId })],
      ["/api/v1/environments/{envId}/services/{service}", () => call(service.GET, `${E}/services/web`, web)],
      ["/api/v1/environments/{envId}/services/{service}/status", () => call(status.GET, `${E}/services/web/status`, web)],
    ];
    for (const [documented, get] of cases) {
      const res = await get();
      expect(res.status, `GET ${documented}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(checker.check("GET", documented, 200, res.body), `GET ${documented}`).toEqual([]);
    }
    const listed = await call(projects.GET, "/api/v1/projects", {});
    expect(listed.body).toEqual([expect.objectContaining({ id: seeded.projectId })]);
    const got = await call(service.GET, `${E}/services/web`, web);
    expect(got.body).toMatchObject({ name: "web", app: "shop", port: 8080, domains: ["shop.localhost"] });
  });

  it("the caller's organizations, tokens, account, current environment; quotas, tier env, members, invitations, security, backup targets, registry credentials; a service's env, drift, secrets, releases; databases", async () => {
    const orgs = await import("../../app/api/v1/orgs/route");
    const tokens = await import("../../app/api/v1/tokens/route");
    const me = await import("../../app/api/v1/me/environment/route");
    const quotas = await import("../../app/api/v1/orgs/[id]/quotas/route");
    const tierEnv = await import("../../app/api/v1/environments/[envId]/env/route");
    const services = await import("../../app/api/v1/environments/[envId]/services/route");
    const env = await import("../../app/api/v1/environments/[envId]/services/[service]/env/route");
    const drift = await import("../../app/api/v1/environments/[envId]/services/[service]/drift/route");
    const secrets = await import("../../app/api/v1/environments/[envId]/services/[service]/secrets/route");
    const deploys = await import("../../app/api/v1/environments/[envId]/services/[service]/deploys/route");
    const databases = await import("../../app/api/v1/environments/[envId]/databases/route");
    const account = await import("../../app/api/v1/account/route");
    const members = await import("../../app/api/v1/orgs/[id]/members/route");
    const invitations = await import("../../app/api/v1/orgs/[id]/invitations/route");
    const security = await import("../../app/api/v1/orgs/[id]/security/route");
    const targets = await import("../../app/api/v1/backup-targets/route");
    const credentials = await import("../../app/api/v1/registry-credentials/route");
    const fleet = await import("../../app/api/v1/services/route");
    const O = `/api/v1/orgs/${seeded.orgId}`;
    const org = { id: seeded.orgId };
    const E = `/api/v1/environments/${seeded.envId}`;
    const S = "/api/v1/environments/{envId}/services/{service}";
    const web = { envId: seeded.envId, service: "web" };
    const cases: [string, () => ReturnType<typeof call>][] = [
      ["/api/v1/orgs", () => call(orgs.GET, "/api/v1/orgs", {})],
      ["/api/v1/tokens", () => call(tokens.GET, "/api/v1/tokens", {})],
      ["/api/v1/me/environment", () => call(me.GET, "/api/v1/me/environment", {})],
      ["/api/v1/orgs/{id}/quotas", () => call(quotas.GET, `/api/v1/orgs/${seeded.orgId}/quotas`, { id: seeded.orgId })],
      ["/api/v1/environments/{envId}/env", () => call(tierEnv.GET, `${E}/env`, { envId: seeded.envId })],
      ["/api/v1/environments/{envId}/services", () => call(services.GET, `${E}/services`, { envId: seeded.envId })],
      [`${S}/env`, () => call(env.GET, `${E}/services/web/env`, web)],
      [`${S}/drift`, () => call(drift.GET, `${E}/services/web/drift`, web)],
      [`${S}/secrets`, () => call(secrets.GET, `${E}/services/web/secrets`, web)],
      [`${S}/deploys`, () => call(deploys.GET, `${E}/services/web/deploys`, web)],
      ["/api/v1/environments/{envId}/databases", () => call(databases.GET, `${E}/databases`, { envId: seeded.envId })],
      ["/api/v1/services", () => call(fleet.GET, "/api/v1/services", {})],
      ["/api/v1/services", () => call(fleet.GET, "/api/v1/services?limit=5", {})],
      ["/api/v1/account", () => call(account.GET, "/api/v1/account", {})],
      ["/api/v1/orgs/{id}/members", () => call(members.GET, `${O}/members`, org)],
      ["/api/v1/orgs/{id}/invitations", () => call(invitations.GET, `${O}/invitations`, org)],
      ["/api/v1/orgs/{id}/security", () => call(security.GET, `${O}/security`, org)],
      ["/api/v1/backup-targets", () => call(targets.GET, "/api/v1/backup-targets", {})],
      ["/api/v1/registry-credentials", () => call(credentials.GET, "/api/v1/registry-credentials", {})],
    ];
    for (const [documented, get] of cases) {
      const res = await get();
      expect(res.status, `GET ${documented}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(checker.check("GET", documented, 200, res.body), `GET ${documented}`).toEqual([]);
    }
    const envOf = await call(env.GET, `${E}/services/web/env`, web);
    expect(envOf.body).toContainEqual(expect.objectContaining({ key: "API_KEY", source: "secret", value: null }));
    expect(JSON.stringify(envOf.body)).not.toContain("a-secret-value");
    expect((await call(fleet.GET, "/api/v1/services?limit=5", {})).body).toMatchObject({ services: [{ name: "web", phase: "stopped" }], nextCursor: null, total: 1 });
    for (const list of [await call(targets.GET, "/api/v1/backup-targets", {}), await call(credentials.GET, "/api/v1/registry-credentials", {})]) {
      expect((list.body as unknown[]).length).toBe(1);
      expect(JSON.stringify(list.body)).not.toContain("a-secret-value");
    }
  });

  it("a 400 names its field, a 404 and a 401 have the error shape", async () => {
    const projects = await import("../../app/api/v1/projects/route");
    const project = await import("../../app/api/v1/projects/[id]/route");
    const service = await import("../../app/api/v1/environments/[envId]/services/[service]/route");
    const bad = await call(projects.POST, "/api/v1/projects", {}, { method: "POST", body: JSON.stringify({ name: "", orgId: seeded.orgId }) });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: "invalid_input", field: "name" } });
    expect(checker.check("POST", "/api/v1/projects", 400, bad.body)).toEqual([]);
    const badPatch = await call(service.PATCH, `/api/v1/environments/${seeded.envId}/services/web`, { envId: seeded.envId, service: "web" }, { method: "PATCH", body: JSON.stringify({ port: 0 }) });
    expect(badPatch.status).toBe(400);
    expect(checker.check("PATCH", "/api/v1/environments/{envId}/services/{service}", 400, badPatch.body)).toEqual([]);
    const missing = randomUUID();
    const none = await call(project.GET, `/api/v1/projects/${missing}`, { id: missing });
    expect(none.status).toBe(404);
    expect(checker.check("GET", "/api/v1/projects/{id}", 404, none.body)).toEqual([]);
    const noService = await call(service.GET, `/api/v1/environments/${seeded.envId}/services/nope`, { envId: seeded.envId, service: "nope" });
    expect(noService.status).toBe(404);
    expect(checker.check("GET", "/api/v1/environments/{envId}/services/{service}", 404, noService.body)).toEqual([]);
    const anonymous = await call(projects.GET, "/api/v1/projects", {}, { auth: false });
    expect(anonymous.status).toBe(401);
    expect(checker.check("GET", "/api/v1/projects", 401, anonymous.body)).toEqual([]);
  });

  it("git sources: a credential made and listed, a git-sourced service with its secret once, a rotation, a 409 on a used credential", async () => {
    const creds = await import("../../app/api/v1/orgs/[id]/git-credentials/route");
    const cred = await import("../../app/api/v1/orgs/[id]/git-credentials/[credId]/route");
    const services = await import("../../app/api/v1/environments/[envId]/services/route");
    const service = await import("../../app/api/v1/environments/[envId]/services/[service]/route");
    const rotate = await import("../../app/api/v1/environments/[envId]/services/[service]/source/webhook-secret/route");
    const O = `/api/v1/orgs/${seeded.orgId}`;
    const org = { id: seeded.orgId };
    const E = `/api/v1/environments/${seeded.envId}`;
    const S = "/api/v1/environments/{envId}/services/{service}";
    const made = await call(creds.POST, `${O}/git-credentials`, org, { method: "POST", body: JSON.stringify({ name: "deploy", kind: "ssh" }) });
    expect(made.status).toBe(201);
    expect(checker.check("POST", "/api/v1/orgs/{id}/git-credentials", 201, made.body)).toEqual([]);
    const id = (made.body as { id: string }).id;
    const listed = await call(creds.GET, `${O}/git-credentials`, org);
    expect(checker.check("GET", "/api/v1/orgs/{id}/git-credentials", 200, listed.body)).toEqual([]);
    expect(JSON.stringify(listed.body)).not.toContain("PRIVATE KEY");
    const body = { name: "built", app: "shop", port: 8080, source: { git: { url: "git@git.example.test:shop.git", credentialId: id } } };
    const created = await call(services.POST, `${E}/services`, { envId: seeded.envId }, { method: "POST", body: JSON.stringify(body) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(checker.check("POST", "/api/v1/environments/{envId}/services", 201, created.body)).toEqual([]);
    const secret = (created.body as { source: { git: { webhookSecret: string } } }).source.git.webhookSecret;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const built = { envId: seeded.envId, service: "built" };
    const got = await call(service.GET, `${E}/services/built`, built);
    expect(checker.check("GET", S, 200, got.body)).toEqual([]);
    expect(JSON.stringify(got.body)).not.toContain(secret);
    const rotated = await call(rotate.POST, `${E}/services/built/source/webhook-secret`, built, { method: "POST" });
    expect(rotated.status).toBe(200);
    expect(checker.check("POST", `${S}/source/webhook-secret`, 200, rotated.body)).toEqual([]);
    const used = await call(cred.DELETE, `${O}/git-credentials/${id}`, { id: seeded.orgId, credId: id }, { method: "DELETE" });
    expect(used.status).toBe(409);
    const bad = await call(services.POST, `${E}/services`, { envId: seeded.envId }, { method: "POST", body: JSON.stringify({ ...body, name: "bad", source: { git: { url: "ext::sh -c id" } } }) });
    expect(bad.body).toMatchObject({ error: { code: "invalid_input", field: "source.git.url" } });
    expect(bad.status).toBe(400);
  });

  it("serves the document itself without auth, cacheable, with a 304 for its ETag", async () => {
    const { GET } = await import("../../app/api/v1/openapi.json/route");
    const { openApiDocument } = await import("./document");
    const first = GET(new Request(`${BASE}/api/v1/openapi.json`));
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("public, max-age=300");
    expect(await first.json()).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
    const again = GET(new Request(`${BASE}/api/v1/openapi.json`, { headers: { "if-none-match": first.headers.get("etag")! } }));
    expect(again.status).toBe(304);
  });
});
