import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, count, eq } from "drizzle-orm";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { auditEntry } from "@levelrail/db/schema/audit";
import { build, gitCredential, gitSource } from "@levelrail/db/schema/git";
import { environment } from "@levelrail/db/schema/orgs";
import { service } from "@levelrail/db/schema/services";
import type { GitSourceView } from "@levelrail/spec/git";
import type { ServiceView } from "@levelrail/spec/service";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { refusal } from "@levelrail/testkit/refusal";
import { seedMember, seedOrg, uniq } from "@levelrail/testkit/seed";
import { createApp } from "../app/app";
import { createEnvironment } from "../project/environment";
import { deployService } from "../release/deploy";
import { rotateWebhookSecret } from "../service/source";
import { getService, listServices } from "../service/view";
import { createService, patchService } from "../service/write";
import { applySpec } from "../spec/apply";
import { exportSpec } from "../spec/export";
import { createGitCredential, deleteGitCredential, listGitCredentials } from "./credentials";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let a: Awaited<ReturnType<typeof seedOrg>>;
let b: Awaited<ReturnType<typeof seedOrg>>;
const dir = mkdtempSync(join(tmpdir(), "lr-git-src-"));

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "gitsrc");
  ({ db, sql } = createDb(database.url));
  a = await seedOrg(db, "gita");
  b = await seedOrg(db, "gitb");
  await createApp({ ctx: a, envId: a.envId, input: { name: "shop" } });
}, 120_000);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

const REPO = "https://git.example.com/team/shop.git";
const SSH_REPO = "git@git.example.com:team/shop.git";
const gitOf = (v: ServiceView): GitSourceView => {
  if (!("git" in v.source)) throw new Error("not a git source");
  return v.source.git;
};
const sourceRows = async (serviceId: string) => db.select().from(gitSource).where(eq(gitSource.serviceId, serviceId));
const buildsOf = async (serviceId: string) => db.select().from(build).where(eq(build.serviceId, serviceId)).orderBy(build.createdAt);

/** Everything a refused request could have written. */
const counts = async () => {
  const [s] = await db.select({ n: count() }).from(service);
  const [g] = await db.select({ n: count() }).from(gitSource);
  const [bd] = await db.select({ n: count() }).from(build);
  const [c] = await db.select({ n: count() }).from(gitCredential);
  const [au] = await db.select({ n: count() }).from(auditEntry);
  return [s?.n, g?.n, bd?.n, c?.n, au?.n];
};

describe("a git-sourced service", () => {
  it("is created with a source row, a sealed webhook secret shown once, image '' and a queued first build", async () => {
    const name = `web-${uniq()}`;
    const v = await createService({ ctx: a, envId: a.envId, input: { name, app: "shop", port: 8080, source: { git: { url: REPO, ref: "release/1", buildArgs: ["NODE_ENV"] } } } });
    expect(v.image).toBe("");
    const g = gitOf(v);
    expect(g).toMatchObject({ url: REPO, ref: "release/1", path: ".", dockerfile: "Dockerfile", credentialId: null, buildArgs: ["NODE_ENV"], target: null, pollIntervalSeconds: null, lastError: "", lastSeenCommit: null });
    expect(g.webhookPath).toBe(`/api/v1/hooks/git/${g.sourceId}`);
    expect(g.webhookSecret).toMatch(/^[0-9a-f]{64}$/);

    const [row] = await sourceRows(v.id);
    expect(row!.id).toBe(g.sourceId);
    expect(row!.webhookSecretSealed).not.toContain(g.webhookSecret!);
    expect(a.kit.keyring.open(row!.webhookSecretSealed)).toBe(g.webhookSecret);

    const builds = await buildsOf(v.id);
    expect(builds).toHaveLength(1);
    expect(builds[0]).toMatchObject({ status: "queued", trigger: "manual", commit: null, ref: "release/1", orgId: a.orgId, deploy: true });

    // Never again: not in the view, not in a list, not in the spec.
    const again = await getService({ ctx: a, envId: a.envId, name });
    expect(JSON.stringify(again)).not.toContain(g.webhookSecret!);
    expect(gitOf(again).webhookSecret).toBeUndefined();
    expect(gitOf(again).sourceId).toBe(g.sourceId);
    const listed = await listServices({ ctx: a, envId: a.envId });
    expect(JSON.stringify(listed)).not.toContain(g.webhookSecret!);
    expect(listed.find((s) => s.name === name)?.source).toEqual(again.source);
    expect(JSON.stringify(await exportSpec({ ctx: a, envId: a.envId }))).not.toContain(g.webhookSecret!);

    // Nothing to deploy before the first build: no release, and Deploy says why.
    const [svc] = await db.select().from(service).where(eq(service.id, v.id));
    expect(svc!.currentReleaseId).toBeNull();
    const err = await refusal(() => deployService({ ctx: a, envId: a.envId, name, input: {} }));
    expect(err.code).toBe("conflict");
    expect(err.message).toContain("first build");
  });

  it("rotates its webhook secret: a new one, shown once, the old one gone", async () => {
    const name = `web-${uniq()}`;
    const v = await createService({ ctx: a, envId: a.envId, input: { name, app: "shop", port: 8080, source: { git: { url: REPO } } } });
    const first = gitOf(v).webhookSecret!;
    const r = await rotateWebhookSecret({ ctx: a, envId: a.envId, name });
    expect(r.sourceId).toBe(gitOf(v).sourceId);
    expect(r.webhookSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(r.webhookSecret).not.toBe(first);
    const [row] = await sourceRows(v.id);
    expect(a.kit.keyring.open(row!.webhookSecretSealed)).toBe(r.webhookSecret);
    const [entry] = await db.select().from(auditEntry).where(and(eq(auditEntry.action, "service.rotate-webhook-secret"), eq(auditEntry.targetId, v.id)));
    expect(JSON.stringify(entry)).not.toContain(r.webhookSecret);
    // A viewer may not; an image-sourced service has no secret to rotate.
    const viewer = await seedMember(db, a, "viewer", "viewer");
    expect((await refusal(() => rotateWebhookSecret({ ctx: viewer, envId: a.envId, name }))).code).toBe("forbidden");
    const plain = `img-${uniq()}`;
    await createService({ ctx: a, envId: a.envId, input: { name: plain, app: "shop", port: 80, image: "nginx:1" } });
    expect((await refusal(() => rotateWebhookSecret({ ctx: a, envId: a.envId, name: plain }))).code).toBe("conflict");
    // Another organization's service is a 404.
    expect((await refusal(() => rotateWebhookSecret({ ctx: b, envId: a.envId, name }))).code).toBe("not_found");
  });

  it("PATCH: a build-relevant change queues a build (superseding the queued one), polling alone does not; {image} deletes the source", async () => {
    const name = `web-${uniq()}`;
    const v = await createService({ ctx: a, envId: a.envId, input: { name, app: "shop", port: 8080, source: { git: { url: REPO } } } });
    const p1 = await patchService({ ctx: a, envId: a.envId, name, input: { source: { git: { url: REPO, pollIntervalSeconds: 300 } } } });
    expect(gitOf(p1).pollIntervalSeconds).toBe(300);
    expect(gitOf(p1).webhookSecret).toBeUndefined();
    expect(gitOf(p1).sourceId).toBe(gitOf(v).sourceId);
    expect(await buildsOf(v.id)).toHaveLength(1);
    await patchService({ ctx: a, envId: a.envId, name, input: { source: { git: { url: REPO, ref: "dev", pollIntervalSeconds: 300 } } } });
    const builds = await buildsOf(v.id);
    expect(builds.map((x) => x.status)).toEqual(["superseded", "queued"]);
    expect(builds[1]!.ref).toBe("dev");

    // image alone on a git-sourced service is refused, naming the field; nothing written.
    const before = await counts();
    const err = await refusal(() => patchService({ ctx: a, envId: a.envId, name, input: { image: "nginx:1" } }));
    expect([err.code, err.field]).toEqual(["invalid_input", "image"]);
    expect(await counts()).toEqual(before);

    const back = await patchService({ ctx: a, envId: a.envId, name, input: { source: { image: "nginx:1.27" } } });
    expect(back.source).toEqual({ image: "nginx:1.27" });
    expect(back.image).toBe("nginx:1.27");
    expect(await sourceRows(v.id)).toHaveLength(0);

    // And to git again: a new source, a new secret.
    const again = await patchService({ ctx: a, envId: a.envId, name, input: { source: { git: { url: "git@git.example.com:team/shop.git" } } } });
    expect(gitOf(again).webhookSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(gitOf(again).sourceId).not.toBe(gitOf(v).sourceId);
    // The last image stays until a build replaces it.
    expect(again.image).toBe("nginx:1.27");
  });

  it.each([
    [{ source: { git: { url: "ext::sh -c id" } } }, "source.git.url"],
    [{ source: { git: { url: "file:///srv/repo" } } }, "source.git.url"],
    [{ source: { git: { url: "https://u:p@git.example.com/x.git" } } }, "source.git.url"],
    [{ source: { git: { url: REPO, ref: "a..b" } } }, "source.git.ref"],
    [{ source: { git: { url: REPO, ref: "-x" } } }, "source.git.ref"],
    [{ source: { git: { url: REPO, path: "../up" } } }, "source.git.path"],
    [{ source: { git: { url: REPO, dockerfile: "/etc/passwd" } } }, "source.git.dockerfile"],
    [{ source: { git: { url: REPO, buildArgs: ["A-B"] } } }, "source.git.buildArgs.0"],
    [{ source: { git: { url: REPO, pollIntervalSeconds: 10 } } }, "source.git.pollIntervalSeconds"],
    [{ source: { git: { url: REPO, credentialId: "0b7a2f49-6a3c-4d2e-8f10-2b3c4d5e6f70" } } }, "source.git.credentialId"],
    [{ source: { git: { url: REPO } }, image: "nginx:1" }, "image"],
    [{ source: {} }, "source"],
    [{}, "image"],
  ])("refuses %j with a 400 naming %s, writing nothing", async (extra, field) => {
    const before = await counts();
    const err = await refusal(() => createService({ ctx: a, envId: a.envId, input: { name: `bad-${uniq()}`, app: "shop", port: 8080, ...extra } }));
    expect([err.code, err.field]).toEqual(["invalid_input", field]);
    expect(await counts()).toEqual(before);
  });
});

describe("git credentials", () => {
  it("generates a deploy key ssh-keygen reads back to the public key shown; never answers the private key", async () => {
    const c = await createGitCredential({ ctx: a, orgId: a.orgId, input: { name: "deploy", kind: "ssh" } });
    expect(c).toMatchObject({ name: "deploy", kind: "ssh", username: null });
    expect(c.publicKey).toMatch(/^ssh-ed25519 AAAA[A-Za-z0-9+/=]+ levelrail-deploy$/);
    expect(Object.keys(c).sort()).toEqual(["createdAt", "hosts", "id", "kind", "name", "publicKey", "username"]);
    expect(c.hosts).toEqual([]);
    const [row] = await db.select().from(gitCredential).where(eq(gitCredential.id, c.id));
    const file = join(dir, "id_deploy");
    writeFileSync(file, a.kit.keyring.open(row!.sealed), { mode: 0o600 });
    expect(execFileSync("ssh-keygen", ["-y", "-f", file], { encoding: "utf8" }).trim()).toBe(c.publicKey);
    const listed = await listGitCredentials({ ctx: a, orgId: a.orgId });
    expect(listed.map((x) => x.name)).toContain("deploy");
    expect(JSON.stringify(listed)).not.toContain("PRIVATE KEY");
    // Audited by field names only.
    const [entry] = await db.select().from(auditEntry).where(and(eq(auditEntry.action, "git-credential.create"), eq(auditEntry.targetId, c.id)));
    expect(entry).toBeDefined();
  });

  it("seals a token and never answers it; another organization sees none of them", async () => {
    const token = `ghp_${uniq()}${uniq()}`;
    const c = await createGitCredential({ ctx: a, orgId: a.orgId, input: { name: "gh", kind: "token", token, username: "x-access-token", hosts: ["GitHub.com", "api.github.com"] } });
    expect(c).toMatchObject({ kind: "token", publicKey: null, username: "x-access-token", hosts: ["github.com", "api.github.com"] });
    expect(JSON.stringify(c)).not.toContain(token);
    const [row] = await db.select().from(gitCredential).where(eq(gitCredential.id, c.id));
    expect(row!.sealed).not.toContain(token);
    expect(a.kit.keyring.open(row!.sealed)).toBe(token);
    expect(JSON.stringify(await listGitCredentials({ ctx: a, orgId: a.orgId }))).not.toContain(token);
    expect((await refusal(() => listGitCredentials({ ctx: b, orgId: a.orgId }))).code).toBe("not_found");
    expect(await listGitCredentials({ ctx: b, orgId: b.orgId })).toEqual([]);
    expect((await refusal(() => deleteGitCredential({ ctx: b, orgId: b.orgId, id: c.id }))).code).toBe("not_found");
    // A developer may not add one (admin, like registry logins).
    const dev = await seedMember(db, a, "dev", "developer");
    expect((await refusal(() => createGitCredential({ ctx: dev, orgId: a.orgId, input: { name: "dev-key", kind: "ssh" } }))).code).toBe("forbidden");
  });

  it("refuses bad input with a 400 naming the field, writing nothing", async () => {
    const before = await counts();
    for (const [input, field] of [
      [{ name: "Bad Name", kind: "ssh" }, "name"],
      [{ name: "t", kind: "token", hosts: ["github.com"] }, "token"],
      [{ name: "t", kind: "token", token: "t0ken" }, "hosts"],
      [{ name: "t", kind: "token", token: "t0ken", hosts: ["https://github.com/acme"] }, "hosts.0"],
      [{ name: "t", kind: "password" }, "kind"],
    ] as const) {
      const err = await refusal(() => createGitCredential({ ctx: a, orgId: a.orgId, input }));
      expect([err.code, err.field]).toEqual(["invalid_input", field]);
    }
    expect(await counts()).toEqual(before);
  });

  it("is 409 to delete while a source uses it; deletable once the source lets go; a service names it only in its own organization", async () => {
    const c = await createGitCredential({ ctx: a, orgId: a.orgId, input: { name: `key-${uniq()}`, kind: "ssh" } });
    const name = `web-${uniq()}`;
    await createService({ ctx: a, envId: a.envId, input: { name, app: "shop", port: 8080, source: { git: { url: "git@git.example.com:team/shop.git", credentialId: c.id } } } });
    const err = await refusal(() => deleteGitCredential({ ctx: a, orgId: a.orgId, id: c.id }));
    expect(err.code).toBe("conflict");
    expect(err.message).toContain(name);
    // Org B cannot name A's credential.
    await createApp({ ctx: b, envId: b.envId, input: { name: "other" } });
    const cross = await refusal(() => createService({ ctx: b, envId: b.envId, input: { name: "x", app: "other", port: 80, source: { git: { url: REPO, credentialId: c.id } } } }));
    expect([cross.code, cross.field]).toEqual(["invalid_input", "source.git.credentialId"]);
    // A deploy key goes over SSH, a token over HTTPS: the other pairing is a 400 naming the credential.
    const wrong = await refusal(() => patchService({ ctx: a, envId: a.envId, name, input: { source: { git: { url: REPO, credentialId: c.id } } } }));
    expect([wrong.code, wrong.field]).toEqual(["invalid_input", "source.git.credentialId"]);
    const token = await createGitCredential({ ctx: a, orgId: a.orgId, input: { name: `tok-${uniq()}`, kind: "token", token: "t0ken", hosts: ["git.example.com"] } });
    const wrongToken = await refusal(() => patchService({ ctx: a, envId: a.envId, name, input: { source: { git: { url: SSH_REPO, credentialId: token.id } } } }));
    expect(wrongToken.message).toContain("a token goes over HTTPS");
    await patchService({ ctx: a, envId: a.envId, name, input: { source: { image: "nginx:1" } } });
    await deleteGitCredential({ ctx: a, orgId: a.orgId, id: c.id });
    expect(await db.select().from(gitCredential).where(eq(gitCredential.id, c.id))).toEqual([]);
  });
});

describe("a credential goes only to its hosts (issue 42, finding 5)", () => {
  it("a source naming a token for another host is a 400 naming credentialId, on create and on patch, writing nothing", async () => {
    const token = await createGitCredential({ ctx: a, orgId: a.orgId, input: { name: `gh-${uniq()}`, kind: "token", token: "ghp_bound", hosts: ["github.com"] } });
    const before = await counts();
    for (const url of ["https://attacker.example/x.git", "https://github.com.attacker.example/acme/shop.git", "https://gitlab.com/acme/shop.git"]) {
      const err = await refusal(() => createService({ ctx: a, envId: a.envId, input: { name: `steal-${uniq()}`, app: "shop", port: 8080, source: { git: { url, credentialId: token.id } } } }));
      expect([err.code, err.field], url).toEqual(["invalid_input", "source.git.credentialId"]);
      expect(err.message).toContain("may be sent only to github.com");
    }
    expect(await counts()).toEqual(before);

    // The host it names is fine; then moving that source to another host keeps the credential off it.
    const name = `bound-${uniq()}`;
    const v = await createService({ ctx: a, envId: a.envId, input: { name, app: "shop", port: 8080, source: { git: { url: "https://github.com/acme/shop.git", credentialId: token.id } } } });
    const after = await counts();
    const moved = await refusal(() => patchService({ ctx: a, envId: a.envId, name, input: { source: { git: { url: "https://attacker.example/acme/shop.git", credentialId: token.id } } } }));
    expect([moved.code, moved.field]).toEqual(["invalid_input", "source.git.credentialId"]);
    expect(await counts()).toEqual(after);
    expect((await sourceRows(v.id))[0]!.url).toBe("https://github.com/acme/shop.git");
  });

  it("a host with a port allows that port only; a deploy key with hosts is bound the same way, one without goes anywhere", async () => {
    const token = await createGitCredential({ ctx: a, orgId: a.orgId, input: { name: `gl-${uniq()}`, kind: "token", token: "glpat", hosts: ["git.example.com:8443"] } });
    const src = (url: string, credentialId: string) => ({ name: `p-${uniq()}`, app: "shop", port: 8080, source: { git: { url, credentialId } } });
    await createService({ ctx: a, envId: a.envId, input: src("https://git.example.com:8443/team/shop.git", token.id) });
    expect((await refusal(() => createService({ ctx: a, envId: a.envId, input: src("https://git.example.com/team/shop.git", token.id) }))).field).toBe("source.git.credentialId");
    const key = await createGitCredential({ ctx: a, orgId: a.orgId, input: { name: `k-${uniq()}`, kind: "ssh", hosts: ["git.example.com"] } });
    expect(key.hosts).toEqual(["git.example.com"]);
    await createService({ ctx: a, envId: a.envId, input: src("git@git.example.com:team/shop.git", key.id) });
    expect((await refusal(() => createService({ ctx: a, envId: a.envId, input: src("git@attacker.example:team/shop.git", key.id) }))).field).toBe("source.git.credentialId");
    const anyKey = await createGitCredential({ ctx: a, orgId: a.orgId, input: { name: `any-${uniq()}`, kind: "ssh" } });
    await createService({ ctx: a, envId: a.envId, input: src("git@elsewhere.example:team/shop.git", anyKey.id) });
  });
});

describe("a token never goes over plain http:// (issue 42 follow-up)", () => {
  it("a source naming a token for an http:// URL of its own host is a 400 naming url, on create and on patch, writing nothing; allowed where private targets are", async () => {
    const token = await createGitCredential({ ctx: a, orgId: a.orgId, input: { name: `plain-${uniq()}`, kind: "token", token: "glpat_plain", hosts: ["git.example.com", "127.0.0.1"] } });
    const publicOnly = { ...a, targetLookup: async () => [{ address: "140.82.121.3", family: 4 as const }] };
    const before = await counts();
    for (const url of ["http://git.example.com/team/shop.git", "HTTP://git.example.com:8080/team/shop.git"]) {
      const err = await refusal(() => createService({ ctx: publicOnly, envId: a.envId, input: { name: `plain-${uniq()}`, app: "shop", port: 8080, source: { git: { url, credentialId: token.id } } } }));
      expect([err.code, err.field], url).toEqual(["invalid_input", "source.git.url"]);
      expect(err.message).toBe("source.git.url: a token is never sent over plain http://; use the repository's https:// URL");
      expect(err.message).not.toContain("glpat_plain");
    }
    expect(await counts()).toEqual(before);

    // Moving an https source to http keeps the token off it.
    const name = `tls-${uniq()}`;
    const v = await createService({ ctx: publicOnly, envId: a.envId, input: { name, app: "shop", port: 8080, source: { git: { url: "https://git.example.com/team/shop.git", credentialId: token.id } } } });
    const after = await counts();
    const moved = await refusal(() => patchService({ ctx: publicOnly, envId: a.envId, name, input: { source: { git: { url: "http://git.example.com/team/shop.git", credentialId: token.id } } } }));
    expect([moved.code, moved.field]).toEqual(["invalid_input", "source.git.url"]);
    expect(await counts()).toEqual(after);
    expect((await sourceRows(v.id))[0]!.url).toBe("https://git.example.com/team/shop.git");

    // Without a credential, plain http is only the address policy's business; with private targets allowed (tests on loopback), a token may go.
    await createService({ ctx: publicOnly, envId: a.envId, input: { name: `open-${uniq()}`, app: "shop", port: 8080, source: { git: { url: "http://git.example.com/team/shop.git" } } } });
    await createService({ ctx: { ...a, allowPrivateTargets: true }, envId: a.envId, input: { name: `lo-${uniq()}`, app: "shop", port: 8080, source: { git: { url: "http://127.0.0.1:9/x.git", credentialId: token.id } } } });
  });
});

describe("a source's URL and the address policy (issue 42, finding 7)", () => {
  it("a URL whose host is, or resolves to, a loopback, private or link-local address is a 400 naming url, writing nothing", async () => {
    const before = await counts();
    const resolving = { ...a, targetLookup: async (host: string) => [{ address: host === "metadata.example.com" ? "169.254.169.254" : "10.0.0.7", family: 4 as const }] };
    for (const [ctx, url] of [
      [a, "http://127.0.0.1:22/x.git"],
      [a, "https://localhost/x.git"],
      [a, "https://git.localhost/x.git"],
      [a, "https://[::1]/x.git"],
      [a, "http://169.254.169.254/latest/meta-data"],
      [a, "git@10.0.0.5:team/shop.git"],
      [a, "ssh://git@192.168.1.1:2222/team/shop.git"],
      [resolving, "https://metadata.example.com/x.git"],
      [resolving, "git@intranet.example.com:team/shop.git"],
    ] as const) {
      const err = await refusal(() => createService({ ctx, envId: a.envId, input: { name: `ssrf-${uniq()}`, app: "shop", port: 8080, source: { git: { url } } } }));
      expect([err.code, err.field], url).toEqual(["invalid_input", "source.git.url"]);
      expect(err.message, url).toContain("LEVELRAIL_ALLOW_PRIVATE_TARGETS");
    }
    // Hosts two URL readers would read differently are refused before any of that.
    const odd = await refusal(() => createService({ ctx: a, envId: a.envId, input: { name: `odd-${uniq()}`, app: "shop", port: 8080, source: { git: { url: "https://github.com\\@127.0.0.1/x.git" } } } }));
    expect([odd.code, odd.field]).toEqual(["invalid_input", "source.git.url"]);
    expect(await counts()).toEqual(before);
    // On patch too.
    const name = `ok-${uniq()}`;
    await createService({ ctx: a, envId: a.envId, input: { name, app: "shop", port: 8080, source: { git: { url: REPO } } } });
    expect((await refusal(() => patchService({ ctx: a, envId: a.envId, name, input: { source: { git: { url: "http://10.1.2.3/x.git" } } } }))).field).toBe("source.git.url");
  });

  it("an installation that allows private targets takes them; a name that resolves to public addresses, or not at all yet, is taken", async () => {
    await createService({ ctx: { ...a, allowPrivateTargets: true }, envId: a.envId, input: { name: `lo-${uniq()}`, app: "shop", port: 8080, source: { git: { url: "http://127.0.0.1:9/x.git" } } } });
    const publicOnly = { ...a, targetLookup: async () => [{ address: "140.82.121.3", family: 4 as const }] };
    await createService({ ctx: publicOnly, envId: a.envId, input: { name: `pub-${uniq()}`, app: "shop", port: 8080, source: { git: { url: "https://github.com/acme/shop.git" } } } });
    const unresolved = { ...a, targetLookup: async () => Promise.reject(Object.assign(new Error("nx"), { code: "ENOTFOUND" })) };
    await createService({ ctx: unresolved, envId: a.envId, input: { name: `nx-${uniq()}`, app: "shop", port: 8080, source: { git: { url: "https://not-yet.example.com/acme/shop.git" } } } });
  });
});

describe("the spec and clones", () => {
  it("export → apply of an environment with git sources changes nothing; the credential is named", async () => {
    const p = await createEnvironment({ ctx: a, projectId: a.projectId, input: { name: `spec-${uniq()}` } });
    await createApp({ ctx: a, envId: p.id, input: { name: "shop" } });
    const c = await createGitCredential({ ctx: a, orgId: a.orgId, input: { name: `spec-${uniq()}`, kind: "ssh" } });
    await createService({ ctx: a, envId: p.id, input: { name: "web", app: "shop", port: 8080, source: { git: { url: SSH_REPO, credentialId: c.id, target: "runtime", buildArgs: ["A"], pollIntervalSeconds: 600 } } } });
    await createService({ ctx: a, envId: p.id, input: { name: "api", app: "shop", port: 8080, image: "nginx:1" } });
    const doc = await exportSpec({ ctx: a, envId: p.id });
    const web = doc.spec.services.find((s) => s.name === "web")!;
    expect(web.image).toBeUndefined();
    expect(web.source?.git).toMatchObject({ url: SSH_REPO, credential: c.name, target: "runtime", buildArgs: ["A"], pollIntervalSeconds: 600 });
    const r = await applySpec({ ctx: a, envId: p.id, input: { spec: doc }, opts: { dryRun: true } });
    expect(r.plan.changes).toEqual([]);
    expect(r.plan.drift).toEqual([]);

    // A change of the file's source is a change of `source`, applied through the API.
    const changed = structuredClone(doc);
    changed.spec.services.find((s) => s.name === "web")!.source!.git!.ref = "next";
    const applied = await applySpec({ ctx: a, envId: p.id, input: { spec: changed }, opts: {} });
    expect(applied.plan.changes.map((x) => [x.name, x.fields.map((f) => f.field)])).toEqual([["web", ["source"]]]);
    const after = await getService({ ctx: a, envId: p.id, name: "web" });
    expect(gitOf(after)).toMatchObject({ ref: "next", credentialId: c.id });
    // An unknown credential name is a 400 at its place in the file.
    const bad = structuredClone(doc);
    bad.spec.services.find((s) => s.name === "web")!.source!.git!.credential = "nope";
    const err = await refusal(() => applySpec({ ctx: a, envId: p.id, input: { spec: bad }, opts: { force: true } }));
    expect(err.field).toBe(`spec.services.${doc.spec.services.findIndex((s) => s.name === "web")}.source.git.credential`);
  });

  it("a clone copies the git source with a new webhook secret and builds nothing", async () => {
    const src = await createEnvironment({ ctx: a, projectId: a.projectId, input: { name: `src-${uniq()}` } });
    await createApp({ ctx: a, envId: src.id, input: { name: "shop" } });
    const v = await createService({ ctx: a, envId: src.id, input: { name: "web", app: "shop", port: 8080, source: { git: { url: REPO, ref: "main" } } } });
    const copy = await createEnvironment({ ctx: a, projectId: a.projectId, input: { name: `copy-${uniq()}`, from: src.id } });
    const cv = await getService({ ctx: a, envId: copy.id, name: "web" });
    expect(gitOf(cv)).toMatchObject({ url: REPO, ref: "main" });
    expect(gitOf(cv).sourceId).not.toBe(gitOf(v).sourceId);
    const [orig] = await sourceRows(v.id);
    const [cloned] = await sourceRows(cv.id);
    expect(a.kit.keyring.open(cloned!.webhookSecretSealed)).not.toBe(a.kit.keyring.open(orig!.webhookSecretSealed));
    expect(await buildsOf(cv.id)).toEqual([]);
    const [env] = await db.select().from(environment).where(eq(environment.id, copy.id));
    expect(env).toBeDefined();
  });
});
