import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApiToken } from "@levelrail/auth";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { auditEntry } from "@levelrail/db/schema/audit";
import { apiToken, session } from "@levelrail/db/schema/auth";
import { installationAdmin } from "@levelrail/db/schema/operator";
import { membership, organization } from "@levelrail/db/schema/orgs";
import { isInstallationAction, requiredRole } from "@levelrail/services/org/permissions";
import type { Role } from "@levelrail/spec/roles";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedMember, seedOrg } from "@levelrail/testkit/seed";
import { actionOf } from "../../../e2e/support/route-actions";

// The route handlers as Next runs them, in this process: `server-only` is Next's build-time guard,
// and `@/` is the web app's path alias (Next resolves it; here each is the module it names).
vi.mock("server-only", () => ({}));
vi.mock("@/lib/actor", async () => await import("./actor"));
vi.mock("@/lib/api", async () => await import("./api"));
vi.mock("@/lib/audit-source", async () => await import("./audit-source"));
vi.mock("@/lib/etag", async () => await import("./etag"));
vi.mock("@/lib/logs/build-log", async () => await import("./logs/build-log"));
vi.mock("@/lib/logs/engine", async () => await import("./logs/engine"));
vi.mock("@/lib/logs/service-logs", async () => await import("./logs/service-logs"));
vi.mock("@/lib/moved", async () => await import("./moved"));
vi.mock("@/lib/nodes", async () => await import("./nodes"));
vi.mock("@/lib/openapi/document", async () => await import("./openapi/document"));
vi.mock("@/lib/request-body", async () => await import("./request-body"));
vi.mock("@/lib/server", async () => await import("./server"));
vi.mock("@/lib/tier-env", async () => await import("./tier-env"));

/**
 * Every route file of the API, called through its real handler (the `route()` wrapper, the verbs, a
 * real PostgreSQL and the real Docker engine for the nodes) by API tokens of every role: a read-only
 * token changes nothing anywhere (the caller's own sessions, memberships, invitations and tokens
 * too), the installation's nodes are read by every member and changed by an installation
 * administrator only, and the routes the walk calls `own` answer every role.
 */
const BASE = "http://127.0.0.1:3801";
const API_DIR = join(import.meta.dirname, "..", "app", "api", "v1");
type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
type Handler = (req: Request, route: { params: Promise<Record<string, unknown>> }) => Promise<Response> | Response;

interface RouteFile {
  file: string;
  method: Method;
  /** `METHOD path` with `{param}` placeholders, as e2e/support/route-actions.ts keys it. */
  path: string;
  params: string[];
  rest: string | null;
}

/** The route files and the methods each exports, read from the files themselves (a new route is walked without an edit here). */
function routeFiles(): RouteFile[] {
  const out: RouteFile[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === "route.ts") {
        const source = readFileSync(full, "utf8");
        const methods = new Set<string>();
        for (const m of source.matchAll(/export const \{([^}]+)\}/g)) for (const name of m[1]!.split(",")) methods.add(name.trim());
        for (const m of source.matchAll(/export (?:const|async function) (GET|POST|PUT|PATCH|DELETE|HEAD)\b/g)) methods.add(m[1]!);
        const segments = relative(API_DIR, dirname(full)).split(sep).filter(Boolean);
        const rest = segments.map((s) => /^\[\[?\.\.\.(\w+)\]\]?$/.exec(s)?.[1]).find((x) => x !== undefined) ?? null;
        const params = segments.map((s) => /^\[(\w+)\]$/.exec(s)?.[1]).filter((x): x is string => x !== undefined);
        const path = ["/api/v1", ...segments.map((s) => s.replace(/^\[\[?\.\.\.(\w+)\]\]?$/, "{...$1}").replace(/^\[(\w+)\]$/, "{$1}"))].join("/");
        for (const method of methods) out.push({ file: full, method: method as Method, path, params, rest });
      }
    }
  };
  walk(API_DIR);
  return out.sort((a, b) => `${a.method} ${a.path}`.localeCompare(`${b.method} ${b.path}`));
}

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let dataDir: string;
let owner: Awaited<ReturnType<typeof seedOrg>>;
const tokens = {} as Record<Role | "readOnly" | "installer" | "installerReadOnly" | "contractor", string>;

async function call(r: RouteFile, token: string, init: { body?: unknown; ids?: Record<string, string>; query?: string } = {}) {
  const values = Object.fromEntries(r.params.map((p) => [p, init.ids?.[p] ?? randomUUID()]));
  const params: Record<string, unknown> = { ...values, ...(r.rest ? { [r.rest]: ["x"] } : {}) };
  const url = `${BASE}${r.path.replace(/\{\.\.\.\w+\}/, "x").replace(/\{(\w+)\}/g, (_, p: string) => String(values[p]))}${init.query ?? ""}`;
  const headers = new Headers({ authorization: `Bearer ${token}` });
  if (init.body !== undefined) headers.set("content-type", "application/json");
  const mod = (await import(r.file)) as Record<string, Handler>;
  const res = await mod[r.method]!(new Request(url, { method: r.method, headers, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) }), { params: Promise.resolve(params) });
  const text = await res.text();
  return { status: res.status, text };
}

/** Rows a change would add or remove: audit entries (every change writes one), sessions, memberships, tokens, organizations. */
async function written() {
  const n = async (table: Parameters<ReturnType<Db["select"]>["from"]>[0]) => (await db.select({ n: count() }).from(table))[0]!.n;
  return { audit: await n(auditEntry), sessions: await n(session), members: await n(membership), tokens: await n(apiToken), orgs: await n(organization) };
}

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "route_walk");
  ({ db, sql } = createDb(database.url));
  dataDir = mkdtempSync(join(tmpdir(), "lrwalk-"));
  // What server() reads at the first request.
  process.env.DATABASE_URL = database.url;
  process.env.LEVELRAIL_DATA_DIR = dataDir;
  process.env.LEVELRAIL_MASTER_KEY = randomBytes(32).toString("base64");
  owner = await seedOrg(db, "walk");
  const org = { orgId: owner.orgId, kit: owner.kit };
  for (const role of ["viewer", "developer", "admin"] as const) tokens[role] = await createApiToken(db, (await seedMember(db, org, `walk-${role}`, role)).email, role);
  tokens.owner = await createApiToken(db, owner.actor.email, "owner");
  tokens.readOnly = await createApiToken(db, owner.actor.email, "read-only", undefined, true);
  tokens.contractor = await createApiToken(db, (await seedMember(db, org, "walk-contractor", "admin", owner.projectId)).email, "contractor");
  const installer = await seedMember(db, org, "walk-installer", "viewer");
  await db.insert(installationAdmin).values({ userId: installer.userId });
  tokens.installer = await createApiToken(db, installer.email, "installer");
  tokens.installerReadOnly = await createApiToken(db, installer.email, "installer-ro", undefined, true);
  // A signed-in browser of the owner: a read-only token must not end it.
  await db.insert(session).values({ id: randomUUID(), token: randomBytes(24).toString("hex"), userId: owner.actor.userId, expiresAt: new Date(Date.now() + 86_400_000) });
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Routes no API token reaches as such: the git webhook (its secret is the credential) and the catch-alls that serve nothing. */
const notTokenRoutes = (r: RouteFile) => r.path.startsWith("/api/v1/hooks/git/") || r.rest !== null;

describe("a read-only API token changes nothing", () => {
  it("every route that is not a read answers 403 saying so, the caller's own sessions, memberships, invitations and tokens too; nothing is written", async () => {
    const changes = routeFiles().filter((r) => r.method !== "GET" && r.method !== "HEAD" && !notTokenRoutes(r));
    // The doors this finding named are among them.
    for (const named of ["DELETE /api/v1/sessions", "DELETE /api/v1/sessions/{id}", "DELETE /api/v1/orgs/{id}/members/{userId}", "POST /api/v1/invitations/accept", "DELETE /api/v1/tokens/{id}", "POST /api/v1/orgs"]) {
      expect(changes.map((r) => `${r.method} ${r.path}`)).toContain(named);
    }
    const before = await written();
    const [ro] = await db.select({ id: apiToken.id }).from(apiToken).where(eq(apiToken.name, "read-only"));
    for (const r of changes) {
      // Real ids where a route names the caller's own things: leaving the organization, revoking this very token.
      const ids = { id: r.path.startsWith("/api/v1/tokens/") ? ro!.id : owner.orgId, userId: "me", envId: owner.envId };
      const res = await call(r, tokens.readOnly, { ids, body: { token: "A".repeat(43), name: "x" } });
      expect(res.status, `${r.method} ${r.path}: ${res.text}`).toBe(403);
      expect(res.text, `${r.method} ${r.path}`).toContain("a read-only API token changes nothing");
    }
    expect(await written()).toEqual(before);
  });

  it("a dry run of a spec is a read: `levelrail diff` with a read-only token is not refused as a change", async () => {
    const apply = routeFiles().find((r) => r.method === "POST" && r.path === "/api/v1/environments/{envId}/apply")!;
    const dry = await call(apply, tokens.readOnly, { ids: { envId: owner.envId }, query: "?dryRun=true", body: { spec: "nothing: here" } });
    expect(dry.status, dry.text).toBe(400);
    const real = await call(apply, tokens.readOnly, { ids: { envId: owner.envId }, body: { spec: "nothing: here" } });
    expect(real.status, real.text).toBe(403);
  });
});

describe("the installation's nodes", () => {
  const nodes = () => routeFiles().filter((r) => r.path.startsWith("/api/v1/nodes"));

  it("every member of a whole organization reads them; a role on one project only does not", async () => {
    const list = nodes().find((r) => r.method === "GET")!;
    for (const who of ["viewer", "developer", "admin", "owner", "readOnly", "installer"] as const) {
      const res = await call(list, tokens[who]);
      expect(res.status, `${who}: ${res.text}`).toBe(200);
    }
    expect((await call(list, tokens.contractor)).status).toBe(403);
  });

  it("no organization role changes one, however high: 403 naming the installation administrator, nothing written; an installation administrator is answered by the engine", async () => {
    const patch = nodes().find((r) => r.method === "PATCH")!;
    const listed = JSON.parse((await call(nodes().find((r) => r.method === "GET")!, tokens.installer)).text) as { nodes: { id: string }[] };
    const ids = { id: listed.nodes[0]!.id };
    const before = await written();
    for (const who of ["viewer", "developer", "admin", "owner", "contractor", "installerReadOnly"] as const) {
      const res = await call(patch, tokens[who], { ids, body: { availability: "drain" } });
      expect(res.status, `${who}: ${res.text}`).toBe(403);
      expect(res.text, who).toMatch(/installation administrator|read-only API token changes nothing/);
    }
    expect(await written()).toEqual(before);
    // The engine answers for itself: one engine takes no change (409), a swarm records it (202).
    const res = await call(patch, tokens.installer, { ids, body: { labels: { walk: "yes" } } });
    expect([202, 409], res.text).toContain(res.status);
  });
});

describe("the routes the role walk calls `own` (the caller's own things, no role needed)", () => {
  it("every read answers every member, whatever their role; the node routes are not among them but name their actions", async () => {
    const own = routeFiles().filter((r) => actionOf(r.method, r.path) === "own");
    expect(own.map((r) => r.path).filter((p) => p.startsWith("/api/v1/nodes"))).toEqual([]);
    expect([actionOf("GET", "/api/v1/nodes"), actionOf("PATCH", "/api/v1/nodes/{id}")]).toEqual(["node.read", "node.write"]);
    expect([requiredRole("node.read"), isInstallationAction("node.write"), requiredRole("node.write")]).toEqual(["viewer", true, null]);
    for (const r of own.filter((x) => x.method === "GET" && !notTokenRoutes(x))) {
      for (const who of ["viewer", "developer", "admin", "owner", "contractor", "readOnly"] as const) {
        const res = await call(r, tokens[who]);
        expect(res.status, `${r.method} ${r.path} as ${who}: ${res.text.slice(0, 200)}`).toBe(200);
      }
    }
  });
});
