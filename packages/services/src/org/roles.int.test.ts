// The role model (issue 23, items 2 and 3) against the real PostgreSQL: each verb refuses a member
// whose role is too weak with a 403 naming the role that would do, writes nothing then, answers 404
// to anyone who is not a member and to a project-limited member outside their project; tokens act
// with at most their creator's role and stop at once when the creator is removed.
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actorForToken, createApiToken } from "@levelrail/auth";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { membership, project } from "@levelrail/db/schema/orgs";
import { release, service } from "@levelrail/db/schema/services";
import { secret } from "@levelrail/db/schema/config";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedMember, seedOrg } from "@levelrail/testkit/seed";
import type { Ctx } from "../context";
import { createApp } from "../app/app";
import { createBackupTarget, listBackupTargets } from "../config/backup-targets";
import { listSecrets, putSecret } from "../env/secrets";
import { getTierEnv, putTierEnv } from "../env/vars";
import { createProject } from "../project/create";
import { createEnvironment, deleteEnvironment, deleteProject } from "../project/environment";
import { listProjects } from "../project/list";
import { deployService } from "../release/deploy";
import { getService, listServices, listServicesPage } from "../service/view";
import { createService } from "../service/write";
import { listOrgs } from "./list";
import { getQuotas } from "./quota";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;

type Org = Awaited<ReturnType<typeof seedOrg>>;
let owner: Org;
let other: { projectId: string; envId: string };
let viewer: Ctx, developer: Ctx, admin: Ctx, contractor: Ctx & { userId: string; email: string }, outsider: Org;

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (err: { code?: string; message?: string }) => err,
  );
const svc = { name: "web", app: "shop", image: "registry.example.com/shop:1", port: 80 };
const releasesOf = async () => (await db.select({ n: count() }).from(release).where(eq(release.orgId, owner.orgId)))[0]!.n;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "roles");
  ({ db, sql } = createDb(database.url, { max: 8 }));
  owner = await seedOrg(db, "roles-owner");
  await createApp({ ctx: owner, envId: owner.envId, input: { name: "shop" } });
  await createService({ ctx: owner, envId: owner.envId, input: svc });
  const p2 = await createProject({ ctx: owner, input: { name: "contracted", orgId: owner.orgId } });
  const e2 = await createEnvironment({ ctx: owner, projectId: p2.id, input: { name: "production" } });
  await createApp({ ctx: owner, envId: e2.id, input: { name: "shop" } });
  await createService({ ctx: owner, envId: e2.id, input: svc });
  other = { projectId: p2.id, envId: e2.id };
  viewer = await seedMember(db, owner, "viewer", "viewer");
  developer = await seedMember(db, owner, "developer", "developer");
  admin = await seedMember(db, owner, "admin", "admin");
  contractor = await seedMember(db, owner, "contractor", "developer", p2.id);
  outsider = await seedOrg(db, "roles-outsider");
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

describe("a viewer", () => {
  it("reads services, secrets' keys and env tiers", async () => {
    expect(await getService({ ctx: viewer, envId: owner.envId, name: "web" })).toMatchObject({ name: "web" });
    expect(await listSecrets({ ctx: viewer, envId: owner.envId, name: "web" })).toEqual([]);
    expect(await getTierEnv({ ctx: viewer, tier: "organization", id: owner.orgId })).toEqual({ vars: {} });
  });

  it("deploys nothing: 403 naming the developer role, and no release written", async () => {
    const before = await releasesOf();
    const err = await refusal(deployService({ ctx: viewer, envId: owner.envId, name: "web", input: {} }));
    expect(err).toMatchObject({ code: "forbidden", message: expect.stringContaining("needs the developer role") });
    expect(await releasesOf()).toBe(before);
  });

  it("writes no secret, env var, service or project", async () => {
    expect(await refusal(putSecret({ ctx: viewer, envId: owner.envId, name: "web", key: "TOKEN", input: { value: "x" } }))).toMatchObject({ code: "forbidden" });
    expect((await db.select({ n: count() }).from(secret).where(eq(secret.orgId, owner.orgId)))[0]!.n).toBe(0);
    expect(await refusal(putTierEnv({ ctx: viewer, tier: "environment", id: owner.envId, input: { vars: { A: "1" } } }))).toMatchObject({ code: "forbidden" });
    expect(await refusal(createService({ ctx: viewer, envId: owner.envId, input: { ...svc, name: "api" } }))).toMatchObject({ code: "forbidden" });
    expect(await refusal(createProject({ ctx: viewer, input: { name: "nope", orgId: owner.orgId } }))).toMatchObject({ message: expect.stringContaining("needs the admin role") });
    expect((await db.select({ n: count() }).from(service).where(eq(service.orgId, owner.orgId)))[0]!.n).toBe(2);
  });

  it("sees its role and what it allows in the organization list (for the UI)", async () => {
    const [org] = await listOrgs({ ctx: viewer });
    expect(org).toMatchObject({ id: owner.orgId, role: "viewer", projectId: null });
    expect(org!.can).toContain("service.read");
    expect(org!.can).not.toContain("service.deploy");
  });
});

describe("a developer", () => {
  it("deploys and writes secrets", async () => {
    expect(await deployService({ ctx: developer, envId: owner.envId, name: "web", input: {} })).toMatchObject({ kind: "deploy" });
    expect(await putSecret({ ctx: developer, envId: owner.envId, name: "web", key: "TOKEN", input: { value: "s3cret-value" } })).toMatchObject({ key: "TOKEN" });
  });

  it("manages no backup targets and deletes no environment or project: 403 naming admin", async () => {
    const err = await refusal(createBackupTarget({ ctx: developer, input: backupTargetInput(owner.orgId) }));
    expect(err).toMatchObject({ code: "forbidden", message: expect.stringContaining("needs the admin role") });
    expect(await refusal(deleteEnvironment({ ctx: developer, envId: owner.envId }))).toMatchObject({ code: "forbidden", message: expect.stringContaining("admin") });
    expect(await refusal(deleteProject({ ctx: developer, projectId: owner.projectId }))).toMatchObject({ code: "forbidden" });
    expect(await getService({ ctx: owner, envId: owner.envId, name: "web" })).toMatchObject({ name: "web" });
  });
});

describe("an admin", () => {
  it("creates projects and backup targets, and deletes an environment", async () => {
    const p = await createProject({ ctx: admin, input: { name: "admin-made", orgId: owner.orgId } });
    const e = await createEnvironment({ ctx: admin, projectId: p.id, input: { name: "staging" } });
    await deleteEnvironment({ ctx: admin, envId: e.id });
    expect(await createBackupTarget({ ctx: admin, input: backupTargetInput(owner.orgId) })).toMatchObject({ name: "store" });
  });
});

describe("a member with a role on one project only", () => {
  it("sees and deploys that project and nothing else: other projects are 404, as are the organization's own things", async () => {
    expect((await listProjects({ ctx: contractor })).map((p) => p.id)).toEqual([other.projectId]);
    expect((await listServices({ ctx: contractor })).map((s) => s.environmentId)).toEqual([other.envId]);
    expect((await listServicesPage({ ctx: contractor, input: {} })).total).toBe(1);
    expect(await deployService({ ctx: contractor, envId: other.envId, name: "web", input: {} })).toMatchObject({ kind: "deploy" });
    expect(await refusal(getService({ ctx: contractor, envId: owner.envId, name: "web" }))).toMatchObject({ code: "not_found" });
    expect(await refusal(deployService({ ctx: contractor, envId: owner.envId, name: "web", input: {} }))).toMatchObject({ code: "not_found" });
    expect(await refusal(getQuotas({ ctx: contractor, orgId: owner.orgId }))).toMatchObject({ code: "not_found" });
    expect(await refusal(getTierEnv({ ctx: contractor, tier: "organization", id: owner.orgId }))).toMatchObject({ code: "not_found" });
    expect(await listBackupTargets({ ctx: contractor })).toEqual([]);
    expect(await refusal(deleteEnvironment({ ctx: contractor, envId: other.envId }))).toMatchObject({ code: "forbidden" });
  });

  it("loses the project's memberships with the project (the row goes with it)", async () => {
    const rows = await db.select().from(membership).where(eq(membership.userId, contractor.userId));
    expect(rows).toMatchObject([{ role: "developer", projectId: other.projectId }]);
    expect((await db.select().from(project).where(eq(project.id, other.projectId))).length).toBe(1);
  });
});

describe("anyone who is not a member", () => {
  it("gets the 404 of something that does not exist, never a 403", async () => {
    for (const run of [
      () => getService({ ctx: outsider, envId: owner.envId, name: "web" }),
      () => deployService({ ctx: outsider, envId: owner.envId, name: "web", input: {} }),
      () => deleteProject({ ctx: outsider, projectId: owner.projectId }),
      () => createProject({ ctx: outsider, input: { name: "x", orgId: owner.orgId } }),
    ]) {
      expect(await refusal(run())).toMatchObject({ code: "not_found" });
    }
  });
});

describe("API tokens", () => {
  it("act with at most their creator's role; a read-only one as a viewer", async () => {
    const dev = await seedMember(db, owner, "tokdev", "developer");
    const full = await actorForToken(db, await createApiToken(db, dev.email, "ci"));
    const readOnly = await actorForToken(db, await createApiToken(db, dev.email, "dash", undefined, true));
    expect(full?.memberships).toMatchObject([{ role: "developer" }]);
    expect(readOnly?.memberships).toMatchObject([{ role: "viewer" }]);
    const ctx = (actor: NonNullable<typeof full>): Ctx => ({ db, actor, kit: owner.kit });
    expect(await deployService({ ctx: ctx(full!), envId: owner.envId, name: "web", input: {} })).toMatchObject({ kind: "deploy" });
    expect(await refusal(deployService({ ctx: ctx(readOnly!), envId: owner.envId, name: "web", input: {} }))).toMatchObject({ code: "forbidden" });
    expect(await refusal(createProject({ ctx: ctx(full!), input: { name: "above", orgId: owner.orgId } }))).toMatchObject({ code: "forbidden" });
  });

  it("of a removed member answer as unknown (401) at the next request", async () => {
    const gone = await seedMember(db, owner, "leaver", "admin");
    const token = await createApiToken(db, gone.email, "ci");
    expect(await actorForToken(db, token)).not.toBeNull();
    await db.delete(membership).where(eq(membership.userId, gone.userId));
    expect(await actorForToken(db, token)).toBeNull();
  });
});

function backupTargetInput(orgId: string) {
  return { orgId, name: "store", endpoint: "https://s3.example.com", bucket: "b", region: "us-east-1", accessKey: "AKIA", secretKey: "secret-key-value" };
}
