import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { auditEntry } from "@levelrail/db/schema/audit";
import { build, gitCredential, gitSource } from "@levelrail/db/schema/git";
import { service } from "@levelrail/db/schema/services";
import type { GitSourceView } from "@levelrail/spec/git";
import type { ServiceView } from "@levelrail/spec/service";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { refusal } from "@levelrail/testkit/refusal";
import { seedOrg, uniq } from "@levelrail/testkit/seed";
import { createApp } from "../app/app";
import { createEnvironment } from "../project/environment";
import { getService } from "../service/view";
import { createService, patchService } from "../service/write";
import { applySpec } from "../spec/apply";
import { exportSpec } from "../spec/export";
import { createGitCredential, deleteGitCredential } from "./credentials";

/**
 * A git source's provider API (`apiProvider`, `apiUrl`, `apiCredentialId`: what previews list open
 * requests from and post statuses to) through the API: set on create and PATCH, checked without
 * connecting (a supported provider, an https URL the installation's address policy allows, a token
 * of the same organization), shown in the view, carried by the spec with its token by name.
 */
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let a: Awaited<ReturnType<typeof seedOrg>>;
let b: Awaited<ReturnType<typeof seedOrg>>;
let tokenA: string;
let keyA: string;
let tokenB: string;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "gitapi");
  ({ db, sql } = createDb(database.url));
  a = await seedOrg(db, "gitapia");
  b = await seedOrg(db, "gitapib");
  await createApp({ ctx: a, envId: a.envId, input: { name: "shop" } });
  tokenA = (await createGitCredential({ ctx: a, orgId: a.orgId, input: { name: "gh-api", kind: "token", token: "ghp_a", hosts: ["github.com", "api.github.com"] } })).id;
  keyA = (await createGitCredential({ ctx: a, orgId: a.orgId, input: { name: "deploy", kind: "ssh" } })).id;
  tokenB = (await createGitCredential({ ctx: b, orgId: b.orgId, input: { name: "gh-api", kind: "token", token: "ghp_b", hosts: ["github.com", "api.github.com"] } })).id;
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

const REPO = "https://github.com/acme/shop.git";
const GITHUB = { apiProvider: "github", apiUrl: "https://api.github.com" } as const;
const gitOf = (v: ServiceView): GitSourceView => {
  if (!("git" in v.source)) throw new Error("not a git source");
  return v.source.git;
};
/** Everything a refused request could have written. */
const counts = async () => {
  const rows = await Promise.all([service, gitSource, build, gitCredential, auditEntry].map((t) => db.select({ n: count() }).from(t)));
  return rows.map(([r]) => r?.n);
};

/** Each bad provider API, the field the 400 names. */
const BAD: [string, Record<string, unknown>, string][] = [
  ["an unsupported provider", { apiProvider: "bitbucket", apiUrl: "https://api.bitbucket.org/2.0" }, "source.git.apiProvider"],
  ["a provider without its URL", { apiProvider: "gitea" }, "source.git.apiUrl"],
  ["a URL without its provider", { apiUrl: "https://api.github.com" }, "source.git.apiProvider"],
  ["a token without a provider", { apiCredentialId: "0b7a2f49-6a3c-4d2e-8f10-2b3c4d5e6f70" }, "source.git.apiCredentialId"],
  ["not a URL", { apiProvider: "github", apiUrl: "api.github.com" }, "source.git.apiUrl"],
  ["another scheme", { apiProvider: "github", apiUrl: "ftp://api.github.com" }, "source.git.apiUrl"],
  ["credentials in the URL", { apiProvider: "github", apiUrl: "https://x:ghp_1@api.github.com" }, "source.git.apiUrl"],
  ["a query", { apiProvider: "github", apiUrl: "https://api.github.com/?token=1" }, "source.git.apiUrl"],
  ["plain http to a public host", { apiProvider: "gitea", apiUrl: "http://gitea.example.com/api/v1" }, "source.git.apiUrl"],
  ["a loopback address (private targets not allowed)", { apiProvider: "gitea", apiUrl: "https://127.0.0.1:3000/api/v1" }, "source.git.apiUrl"],
  ["a private address", { apiProvider: "gitlab", apiUrl: "https://10.0.0.5/api/v4" }, "source.git.apiUrl"],
  ["a loopback name", { apiProvider: "gitlab", apiUrl: "https://gitlab.localhost/api/v4" }, "source.git.apiUrl"],
  ["the cloud metadata address", { apiProvider: "github", apiUrl: "https://169.254.169.254/latest" }, "source.git.apiUrl"],
  ["a credential id that is no uuid", { ...GITHUB, apiCredentialId: "gh-api" }, "source.git.apiCredentialId"],
  ["a credential that does not exist", { ...GITHUB, apiCredentialId: "0b7a2f49-6a3c-4d2e-8f10-2b3c4d5e6f70" }, "source.git.apiCredentialId"],
  ["another organization's token", { ...GITHUB, apiCredentialId: "<tokenB>" }, "source.git.apiCredentialId"],
  ["a deploy key (not a token)", { ...GITHUB, apiCredentialId: "<keyA>" }, "source.git.apiCredentialId"],
  // The token is bound to github.com and api.github.com: another API host never gets it (issue 42, finding 5).
  ["a token not bound to the API's host", { apiProvider: "gitea", apiUrl: "https://gitea.attacker.example/api/v1", apiCredentialId: "<tokenA>" }, "source.git.apiCredentialId"],
];
const PLACEHOLDERS: Record<string, () => string> = { "<tokenA>": () => tokenA, "<tokenB>": () => tokenB, "<keyA>": () => keyA };
const fill = (api: Record<string, unknown>) => {
  const id = PLACEHOLDERS[String(api.apiCredentialId)];
  return { ...api, ...(id ? { apiCredentialId: id() } : {}) };
};

describe("a git source's provider API through the API", () => {
  it("is set on create, shown in the view and stored; PATCH changes it and can remove it", async () => {
    const name = `web-${uniq()}`;
    const v = await createService({ ctx: a, envId: a.envId, input: { name, app: "shop", port: 8080, source: { git: { url: REPO, ...GITHUB, apiCredentialId: tokenA } } } });
    expect(gitOf(v)).toMatchObject({ apiProvider: "github", apiUrl: "https://api.github.com", apiCredentialId: tokenA });
    const [row] = await db.select().from(gitSource).where(eq(gitSource.serviceId, v.id));
    expect(row).toMatchObject({ apiProvider: "github", apiUrl: "https://api.github.com", apiCredentialId: tokenA });
    expect(gitOf(await getService({ ctx: a, envId: a.envId, name }))).toMatchObject({ apiProvider: "github", apiCredentialId: tokenA });

    // PATCH replaces the source whole: a self-hosted Gitea without a token, the same webhook secret.
    const p = await patchService({ ctx: a, envId: a.envId, name, input: { source: { git: { url: REPO, apiProvider: "gitea", apiUrl: "https://git.example.com/api/v1" } } } });
    expect(gitOf(p)).toMatchObject({ apiProvider: "gitea", apiUrl: "https://git.example.com/api/v1", apiCredentialId: null, sourceId: gitOf(v).sourceId });
    expect(gitOf(p).webhookSecret).toBeUndefined();
    // A change of the provider API alone builds nothing (builds do not read it).
    expect(await db.select().from(build).where(eq(build.serviceId, v.id))).toHaveLength(1);
    const off = await patchService({ ctx: a, envId: a.envId, name, input: { source: { git: { url: REPO } } } });
    expect(gitOf(off)).toMatchObject({ apiProvider: null, apiUrl: null, apiCredentialId: null });
  });

  it.each(BAD)("create refuses %s with a 400 naming the field, writing nothing", async (_what, api, field) => {
    const before = await counts();
    const err = await refusal(() => createService({ ctx: a, envId: a.envId, input: { name: `bad-${uniq()}`, app: "shop", port: 8080, source: { git: { url: REPO, ...fill(api) } } } }));
    expect([err.code, err.field]).toEqual(["invalid_input", field]);
    expect(err.message.startsWith(`${field}: `)).toBe(true);
    expect(await counts()).toEqual(before);
  });

  it.each(BAD)("PATCH refuses %s with a 400 naming the field, leaving the source as it was", async (_what, api, field) => {
    const name = `patch-${uniq()}`;
    await createService({ ctx: a, envId: a.envId, input: { name, app: "shop", port: 8080, source: { git: { url: REPO, ...GITHUB, apiCredentialId: tokenA } } } });
    const [before] = await db.select().from(gitSource).where(eq(gitSource.serviceId, (await getService({ ctx: a, envId: a.envId, name })).id));
    const n = await counts();
    const err = await refusal(() => patchService({ ctx: a, envId: a.envId, name, input: { source: { git: { url: REPO, ...fill(api) } } } }));
    expect([err.code, err.field]).toEqual(["invalid_input", field]);
    expect((await db.select().from(gitSource).where(eq(gitSource.id, before!.id)))[0]).toEqual(before);
    expect(await counts()).toEqual(n);
  });

  it("a loopback or plain-http API is accepted only where the installation allows private targets", async () => {
    const local = { ...a, allowPrivateTargets: true };
    const v = await createService({ ctx: local, envId: a.envId, input: { name: `local-${uniq()}`, app: "shop", port: 8080, source: { git: { url: REPO, apiProvider: "gitea", apiUrl: "http://127.0.0.1:3000/api/v1" } } } });
    expect(gitOf(v)).toMatchObject({ apiProvider: "gitea", apiUrl: "http://127.0.0.1:3000/api/v1" });
    const err = await refusal(() => createService({ ctx: { ...a, panelHost: "panel.example.com" }, envId: a.envId, input: { name: `own-${uniq()}`, app: "shop", port: 8080, source: { git: { url: REPO, apiProvider: "gitea", apiUrl: "https://panel.example.com/api/v1" } } } }));
    expect([err.code, err.field]).toEqual(["invalid_input", "source.git.apiUrl"]);
    expect(err.message).toContain("the panel's own host");
  });

  it("a token a source's provider API uses cannot be deleted (409 naming the service)", async () => {
    const t = await createGitCredential({ ctx: a, orgId: a.orgId, input: { name: `api-${uniq()}`, kind: "token", token: "glpat-x", hosts: ["gitlab.example.com"] } });
    const name = `held-${uniq()}`;
    await createService({ ctx: a, envId: a.envId, input: { name, app: "shop", port: 8080, source: { git: { url: REPO, apiProvider: "gitlab", apiUrl: "https://gitlab.example.com/api/v4", apiCredentialId: t.id } } } });
    const err = await refusal(() => deleteGitCredential({ ctx: a, orgId: a.orgId, id: t.id }));
    expect(err.code).toBe("conflict");
    expect(err.message).toContain(name);
    await patchService({ ctx: a, envId: a.envId, name, input: { source: { git: { url: REPO } } } });
    await deleteGitCredential({ ctx: a, orgId: a.orgId, id: t.id });
  });

  it("the spec carries it with its token by name: export → apply changes nothing; a change applies; a bad one is a 400 at its place", async () => {
    const env = await createEnvironment({ ctx: a, projectId: a.projectId, input: { name: `api-${uniq()}` } });
    await createApp({ ctx: a, envId: env.id, input: { name: "shop" } });
    await createService({ ctx: a, envId: env.id, input: { name: "web", app: "shop", port: 8080, source: { git: { url: REPO, ...GITHUB, apiCredentialId: tokenA } } } });
    const doc = await exportSpec({ ctx: a, envId: env.id });
    const i = doc.spec.services.findIndex((s) => s.name === "web");
    expect(doc.spec.services[i]!.source?.git).toMatchObject({ ...GITHUB, apiCredential: "gh-api", credential: null });
    expect(JSON.stringify(doc)).not.toContain("apiCredentialId");
    const same = await applySpec({ ctx: a, envId: env.id, input: { spec: doc }, opts: { dryRun: true } });
    expect(same.plan.changes).toEqual([]);

    const changed = structuredClone(doc);
    Object.assign(changed.spec.services[i]!.source!.git!, { apiProvider: "gitea", apiUrl: "https://git.example.com/api/v1", apiCredential: null });
    const applied = await applySpec({ ctx: a, envId: env.id, input: { spec: changed }, opts: {} });
    expect(applied.plan.changes.map((x) => [x.name, x.fields.map((f) => f.field)])).toEqual([["web", ["source"]]]);
    expect(gitOf(await getService({ ctx: a, envId: env.id, name: "web" }))).toMatchObject({ apiProvider: "gitea", apiUrl: "https://git.example.com/api/v1", apiCredentialId: null });

    for (const [api, field] of [
      [{ apiProvider: "github", apiUrl: "https://api.github.com", apiCredential: "nope" }, "apiCredential"],
      [{ apiProvider: "github", apiUrl: "https://api.github.com", apiCredential: "deploy" }, "apiCredential"],
      [{ apiProvider: "github", apiUrl: "http://api.github.com" }, "apiUrl"],
      [{ apiProvider: "svn", apiUrl: "https://api.github.com" }, "apiProvider"],
    ] as const) {
      const bad = structuredClone(doc);
      Object.assign(bad.spec.services[i]!.source!.git!, api);
      const err = await refusal(() => applySpec({ ctx: a, envId: env.id, input: { spec: bad }, opts: { force: true } }));
      expect([err.code, err.field]).toEqual(["invalid_input", `spec.services.${i}.source.git.${field}`]);
    }
    expect(gitOf(await getService({ ctx: a, envId: env.id, name: "web" }))).toMatchObject({ apiProvider: "gitea", apiCredentialId: null });
  });

  it("a clone of the environment keeps the source's provider API", async () => {
    const src = await createEnvironment({ ctx: a, projectId: a.projectId, input: { name: `src-${uniq()}` } });
    await createApp({ ctx: a, envId: src.id, input: { name: "shop" } });
    await createService({ ctx: a, envId: src.id, input: { name: "web", app: "shop", port: 8080, source: { git: { url: REPO, ...GITHUB, apiCredentialId: tokenA } } } });
    const copy = await createEnvironment({ ctx: a, projectId: a.projectId, input: { name: `copy-${uniq()}`, from: src.id } });
    expect(gitOf(await getService({ ctx: a, envId: copy.id, name: "web" }))).toMatchObject({ ...GITHUB, apiCredentialId: tokenA });
  });
});
