import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { auditEntry } from "@levelrail/db/schema/audit";
import { domainProof, domainToken } from "@levelrail/db/schema/domains";
import { ssoEmailDomain } from "@levelrail/db/schema/sso";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedMember, seedOrg, testKit } from "@levelrail/testkit/seed";
import type { Ctx } from "../context";
import { addSsoDomain, checkSsoDomain, emailDomainProven, listSsoDomains, removeSsoDomain } from "./sso-domains";

// The email domains an organization's single sign-on signs in, through the verbs the API routes call,
// against a fresh PostgreSQL. (The worker's TXT check of them: apps/worker's sso-domains test.)

const kit = testKit();
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let org: Awaited<ReturnType<typeof seedOrg>>;
let other: Awaited<ReturnType<typeof seedOrg>>;
let owner: Ctx;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "sso_domains");
  ({ db, sql } = createDb(database.url));
  org = await seedOrg(db, "ssod", kit);
  other = await seedOrg(db, "ssod-other", kit);
  owner = { ...org, baseDomains: ["apps.lr.test"] };
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

const auditOf = async (orgId: string) => db.select().from(auditEntry).where(eq(auditEntry.orgId, orgId));
const verify = (orgId: string, domain: string) => db.update(domainProof).set({ status: "verified", verifiedAt: new Date() }).where(and(eq(domainProof.orgId, orgId), eq(domainProof.domain, domain)));

describe("single sign-on email domains", () => {
  it("an owner adds one: pending, with the TXT record to create holding the organization's token; the worker is asked to check it at once", async () => {
    const before = new Date();
    const view = await addSsoDomain({ ctx: owner, orgId: org.orgId, input: { domain: " Mail.Corp.Example " } });
    const [token] = await db.select().from(domainToken).where(eq(domainToken.orgId, org.orgId));
    expect(view).toEqual({
      domain: "mail.corp.example",
      status: "pending",
      record: { type: "TXT", name: "_levelrail-challenge.mail.corp.example", value: token!.token },
      lastCheck: null,
      verifiedAt: null,
      signsIn: false,
    });
    const [proof] = await db.select().from(domainProof).where(and(eq(domainProof.orgId, org.orgId), eq(domainProof.domain, "mail.corp.example")));
    expect(proof!.status).toBe("pending");
    expect(proof!.nextCheckAt.getTime()).toBeLessThanOrEqual(Date.now());
    expect(proof!.nextCheckAt.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000);
    expect(await listSsoDomains({ ctx: owner, orgId: org.orgId })).toEqual([view]);
    // Adding it again changes nothing and records nothing new.
    await addSsoDomain({ ctx: owner, orgId: org.orgId, input: { domain: "mail.corp.example" } });
    expect((await auditOf(org.orgId)).filter((e) => e.action === "sso.domain.add").map((e) => e.targetName)).toEqual(["mail.corp.example"]);
  });

  it("its sign-ins follow the proof: only a listed domain this organization has verified signs in", async () => {
    await addSsoDomain({ ctx: owner, orgId: org.orgId, input: { domain: "signs.example" } });
    expect(await emailDomainProven(db, org.orgId, "ann@signs.example")).toBe(false);
    await verify(org.orgId, "signs.example");
    expect(await emailDomainProven(db, org.orgId, "Ann@Signs.Example")).toBe(true);
    expect((await listSsoDomains({ ctx: owner, orgId: org.orgId })).find((d) => d.domain === "signs.example")).toMatchObject({ status: "verified", signsIn: true });
    // Not for another organization, nor for a subdomain, nor for an address without a domain.
    expect(await emailDomainProven(db, other.orgId, "ann@signs.example")).toBe(false);
    expect(await emailDomainProven(db, org.orgId, "ann@eu.signs.example")).toBe(false);
    expect(await emailDomainProven(db, org.orgId, "signs.example")).toBe(false);
    // A proven domain of the organization's services that is not listed for sign-in does not sign in.
    await db.insert(domainProof).values({ orgId: org.orgId, domain: "web-only.example", status: "verified" });
    expect(await emailDomainProven(db, org.orgId, "ann@web-only.example")).toBe(false);
    // Removed: it signs in nobody any more, and another organization's proof is a 409 for the same name.
    await removeSsoDomain({ ctx: owner, orgId: org.orgId, domain: "signs.example" });
    expect(await emailDomainProven(db, org.orgId, "ann@signs.example")).toBe(false);
    await expect(addSsoDomain({ ctx: { ...other, baseDomains: [] }, orgId: other.orgId, input: { domain: "signs.example" } })).rejects.toMatchObject({ code: "conflict", field: "domain" });
    expect(await db.select().from(ssoEmailDomain).where(eq(ssoEmailDomain.orgId, other.orgId))).toEqual([]);
  });

  it("check now makes the proof due at once; an unknown domain is a 404", async () => {
    await addSsoDomain({ ctx: owner, orgId: org.orgId, input: { domain: "later.example" } });
    const far = new Date(Date.now() + 3_600_000);
    await db.update(domainProof).set({ nextCheckAt: far }).where(and(eq(domainProof.orgId, org.orgId), eq(domainProof.domain, "later.example")));
    const view = await checkSsoDomain({ ctx: owner, orgId: org.orgId, domain: "LATER.example" });
    expect(view.domain).toBe("later.example");
    const [proof] = await db.select().from(domainProof).where(and(eq(domainProof.orgId, org.orgId), eq(domainProof.domain, "later.example")));
    expect(proof!.nextCheckAt.getTime()).toBeLessThanOrEqual(Date.now());
    for (const domain of ["nope.example", "not a domain", "x".repeat(300)]) {
      await expect(checkSsoDomain({ ctx: owner, orgId: org.orgId, domain })).rejects.toMatchObject({ code: "not_found" });
      await expect(removeSsoDomain({ ctx: owner, orgId: org.orgId, domain })).rejects.toMatchObject({ code: "not_found" });
    }
  });

  it("bad input is a 400 naming the field, and nothing is written", async () => {
    const before = { domains: await db.select().from(ssoEmailDomain), proofs: await db.select().from(domainProof), audit: (await auditOf(org.orgId)).length };
    const cases: [unknown, string][] = [
      [{ domain: "not a domain" }, "domain"],
      [{ domain: "" }, "domain"],
      [{ domain: "a@b.example" }, "domain"],
      [{}, "domain"],
      [{ domain: "ok.example", extra: 1 }, "extra"],
      [{ domain: "team.localhost" }, "domain"],
      [{ domain: "shop.apps.lr.test" }, "domain"],
    ];
    for (const [input, field] of cases) {
      await expect(addSsoDomain({ ctx: owner, orgId: org.orgId, input }), JSON.stringify(input)).rejects.toMatchObject({ code: "invalid_input", field });
    }
    expect(await db.select().from(ssoEmailDomain)).toEqual(before.domains);
    expect(await db.select().from(domainProof)).toEqual(before.proofs);
    expect((await auditOf(org.orgId)).length).toBe(before.audit);
  });

  it("only an owner reads or changes them; another organization's are a 404", async () => {
    for (const role of ["admin", "developer", "viewer"] as const) {
      const m = await seedMember(db, org, `ssod-${role}`, role);
      await expect(listSsoDomains({ ctx: m, orgId: org.orgId })).rejects.toMatchObject({ code: "forbidden" });
      await expect(addSsoDomain({ ctx: m, orgId: org.orgId, input: { domain: "mine.example" } })).rejects.toMatchObject({ code: "forbidden" });
      await expect(checkSsoDomain({ ctx: m, orgId: org.orgId, domain: "mail.corp.example" })).rejects.toMatchObject({ code: "forbidden" });
      await expect(removeSsoDomain({ ctx: m, orgId: org.orgId, domain: "mail.corp.example" })).rejects.toMatchObject({ code: "forbidden" });
    }
    await expect(listSsoDomains({ ctx: other, orgId: org.orgId })).rejects.toMatchObject({ code: "not_found" });
    await expect(addSsoDomain({ ctx: other, orgId: org.orgId, input: { domain: "mine.example" } })).rejects.toMatchObject({ code: "not_found" });
    await expect(checkSsoDomain({ ctx: other, orgId: org.orgId, domain: "mail.corp.example" })).rejects.toMatchObject({ code: "not_found" });
    await expect(removeSsoDomain({ ctx: other, orgId: org.orgId, domain: "mail.corp.example" })).rejects.toMatchObject({ code: "not_found" });
    expect((await db.select().from(ssoEmailDomain).where(eq(ssoEmailDomain.domain, "mine.example"))).length).toBe(0);
  });
});
