import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { addSsoDomain, emailDomainProven, listSsoDomains } from "@levelrail/services/org/sso-domains";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { type TestDns, startTestDns } from "@levelrail/testkit/dns";
import { seedOrg, testKit } from "@levelrail/testkit/seed";
import { challengeName } from "@levelrail/spec/domains";
import { pgProofStore } from "../../domain-store";
import { txtLookup } from "./lookup";
import { DEFAULT_PROOF_POLICY } from "./plan";
import { domainsController } from "./reconcile";

/**
 * The email domains an organization's single sign-on signs in are proven like a service's domains:
 * the domains controller (its PostgreSQL store, node's resolver) checks their TXT record against a
 * DNS server of the test's own on loopback, the only one asked.
 */
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let dns: TestDns;
let org: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "sso_domain_proof");
  ({ db, sql } = createDb(database.url));
  dns = await startTestDns();
  org = await seedOrg(db, "ssodns", testKit());
}, 120_000);

afterAll(async () => {
  await dns?.close();
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

describe("single sign-on email domains are proven by the domains controller", () => {
  it("a domain stays pending (and kept) without its record, becomes verified once the TXT record holds the organization's token, and then signs in", async () => {
    const controller = domainsController({ store: pgProofStore(db, []), lookup: txtLookup(dns.address, 1000), policy: { ...DEFAULT_PROOF_POLICY, pendingBaseMs: 0, pendingMaxMs: 0 }, now: () => new Date(), routesChanged: () => undefined });
    const added = await addSsoDomain({ ctx: org, orgId: org.orgId, input: { domain: "people.example" } });
    const statusOf = async () => (await listSsoDomains({ ctx: org, orgId: org.orgId })).find((d) => d.domain === "people.example");

    await controller.reconcile("domains");
    expect(dns.questions).toContain(`TXT ${challengeName("people.example")}`);
    expect(await statusOf()).toMatchObject({ status: "pending", signsIn: false, lastCheck: { result: expect.stringContaining("no TXT record") } });
    expect(await emailDomainProven(db, org.orgId, "ann@people.example")).toBe(false);

    dns.set(challengeName("people.example"), ["unrelated", added.record.value]);
    await controller.reconcile("domains");
    expect(await statusOf()).toMatchObject({ status: "verified", signsIn: true });
    expect(await emailDomainProven(db, org.orgId, "ann@people.example")).toBe(true);
  });
});
