// The remote commands end to end: the real CLI (scripts/cli.ts through tsx) over HTTP with an API
// token, against a stand-in panel that serves the spec routes through the same verbs and token
// lookup as the web app's route handlers (the Next app itself is not built here), on a fresh database.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actorForToken, createApiToken } from "@levelrail/auth";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { createApp } from "@levelrail/services/app/app";
import type { Ctx } from "@levelrail/services/context";
import { listEnvironments, listProjects } from "@levelrail/services/project/list";
import { createEnvironment } from "@levelrail/services/project/environment";
import { createService } from "@levelrail/services/service/write";
import { applySpec } from "@levelrail/services/spec/apply";
import { exportSpec } from "@levelrail/services/spec/export";
import { specText } from "@levelrail/spec/env-spec-read";
import { LevelrailError, errorBody, httpStatus } from "@levelrail/spec/errors";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";

const root = join(import.meta.dirname, "..", "..");
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let org: Awaited<ReturnType<typeof seedOrg>>;
let server: Server;
let url: string;
let token: string;
const home = mkdtempSync(join(tmpdir(), "lrsp-cli-"));

async function handle(req: IncomingMessage, res: ServerResponse) {
  const send = (status: number, body: string, type = "application/json") => res.writeHead(status, { "content-type": type }).end(body);
  try {
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "");
    const actor = m?.[1] ? await actorForToken(db, m[1]) : null;
    if (!actor) throw new LevelrailError("unauthenticated", "sign in or send Authorization: Bearer <token>");
    const ctx: Ctx = { db, actor, kit: org.kit };
    const u = new URL(req.url ?? "/", "http://x");
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    let p: RegExpExecArray | null;
    if (req.method === "GET" && u.pathname === "/api/v1/projects") return send(200, JSON.stringify(await listProjects({ ctx })));
    if (req.method === "GET" && (p = /^\/api\/v1\/projects\/([^/]+)\/environments$/.exec(u.pathname))) return send(200, JSON.stringify(await listEnvironments({ ctx, projectId: p[1]! })));
    if (req.method === "GET" && (p = /^\/api\/v1\/environments\/([^/]+)\/spec$/.exec(u.pathname))) return send(200, specText(await exportSpec({ ctx, envId: p[1]! })), "application/yaml");
    if (req.method === "POST" && (p = /^\/api\/v1\/environments\/([^/]+)\/apply$/.exec(u.pathname))) {
      const flag = (n: string) => u.searchParams.get(n) === "true";
      const r = await applySpec({ ctx, envId: p[1]!, input: body, opts: { dryRun: flag("dryRun"), prune: flag("prune"), force: flag("force"), deploy: flag("deploy") } });
      return send(200, JSON.stringify(r));
    }
    throw new LevelrailError("not_found", "not found");
  } catch (err) {
    const e = err instanceof LevelrailError ? err : new LevelrailError("internal", String(err));
    send(httpStatus(e.code), JSON.stringify(errorBody(e)));
  }
}

function cli(args: string[], opts: { env?: Record<string, string>; stdin?: string } = {}): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = execFile(join(root, "node_modules", ".bin", "tsx"), [join(root, "scripts", "cli.ts"), ...args], { cwd: root, env: { PATH: process.env.PATH ?? "", HOME: home, ...opts.env } }, (error, out, err) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, out, err }),
    );
    child.stdin?.end(opts.stdin ?? "");
  });
}

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "spec_cli");
  ({ db, sql } = createDb(database.url));
  org = await seedOrg(db, "speccli");
  await createApp({ ctx: org, envId: org.envId, input: { name: "shop" } });
  await createService({ ctx: org, envId: org.envId, input: { name: "web", app: "shop", image: "registry.example.com/shop:1.0", port: 8080, env: { A: "1" } } });
  await createEnvironment({ ctx: org, projectId: org.projectId, input: { name: "staging" } });
  token = await createApiToken(db, org.actor.email, "ci");
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

describe("levelrail login, export, diff, apply", () => {
  it("login keeps the token in a file only its owner reads; a bad token is refused", async () => {
    const bad = await cli(["login", "--url", url], { stdin: "not-a-token\n" });
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("is the token right?");
    const ok = await cli(["login", "--url", `${url}/`], { stdin: `${token}\n` });
    expect(ok.err).toBe("");
    expect(ok.code).toBe(0);
    const file = join(home, ".config", "levelrail", "credentials");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ url, token });
    expect(ok.out).not.toContain(token);
  });

  it("exports, copies to another environment with apply, and diff then exits 0; a change exits 2", async () => {
    const project = (await listProjects({ ctx: org }))[0]!.name;
    const exported = await cli(["export", "--env", `${project}/production`]);
    expect(exported.code).toBe(0);
    expect(exported.out).toContain("kind: Environment");
    expect(exported.out).toMatch(/resourceVersion: [0-9a-f]{24}/);
    const file = join(home, "env.yaml");
    writeFileSync(file, exported.out);
    expect(await cli(["diff", "-f", file])).toMatchObject({ code: 0, out: expect.stringContaining("nothing to do") });
    const staging = ["--env", `${project}/staging`];
    const before = await cli(["diff", "-f", file, ...staging]);
    expect(before.code).toBe(2);
    expect(before.out).toContain("+ service web (create)");
    const applied = await cli(["apply", "-f", file, ...staging], { env: { LEVELRAIL_URL: url, LEVELRAIL_TOKEN: token } });
    expect(applied.code).toBe(0);
    expect((await cli(["diff", "-f", file, ...staging])).code).toBe(0);
    writeFileSync(file, exported.out.replace("shop:1.0", "shop:2.0"));
    const changed = await cli(["diff", "-f", file]);
    expect(changed.code).toBe(2);
    expect(changed.out).toContain("    image: registry.example.com/shop:1.0 -> registry.example.com/shop:2.0");
  });

  it("a bad file is exit 1 with its line and column; a literal --secret is refused", async () => {
    const file = join(home, "bad.yaml");
    writeFileSync(file, "apiVersion: levelrail.dev/v1\nkind: Environment\nmetadata:\n  project: p\n  environment: e\n  colour: blue\n");
    const r = await cli(["diff", "-f", file]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${file}:6:3: metadata.colour: unknown field colour`);
    const lit = await cli(["apply", "-f", join(home, "env.yaml"), "--secret", "API_KEY=hunter2"]);
    expect(lit.code).toBe(1);
    expect(lit.err).toContain("KEY=@env:VAR");
    expect(lit.err).not.toContain("hunter2");
  });
});
