import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { MIGRATIONS_DIR } from "@levelrail/db/migrate";
import { domainProof } from "@levelrail/db/schema/domains";
import { service } from "@levelrail/db/schema/services";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";
import { createApp } from "../app/app";
import { getService } from "../service/view";
import { createService } from "../service/write";

/**
 * Migration 0015: the domains services had before ownership proofs existed keep routing through
 * the upgrade (a proof last seen at the upgrade, so the grace period starts then); `*.localhost`
 * needs none. The migration's SQL runs on services written without proofs, as an upgrade finds them.
 */
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "domain_upgrade");
  ({ db, sql } = createDb(database.url, { max: 2 }));
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

describe("migration 0015_domain_proof_upgrade", () => {
  it("gives every domain a service already had a proof seen now, for the organization that routed it", async () => {
    const a = await seedOrg(db, "upgrade-a");
    const b = await seedOrg(db, "upgrade-b");
    for (const o of [a, b]) await createApp({ ctx: o, envId: o.envId, input: { name: "shop" } });
    await createService({ ctx: a, envId: a.envId, input: { name: "web", app: "shop", image: "nginx:1.27", port: 80, domains: ["shop.example.com", "web.localhost"] } });
    await createService({ ctx: b, envId: b.envId, input: { name: "web", app: "shop", image: "nginx:1.27", port: 80 } });
    // As before this version: the same domain on a second (younger) service of another organization, and no proofs at all.
    await db.update(service).set({ domains: ["shop.example.com", "b.example.org"] }).where(eq(service.orgId, b.orgId));
    await db.delete(domainProof);

    await sql.unsafe(readFileSync(join(MIGRATIONS_DIR, "0015_domain_proof_upgrade.sql"), "utf8"));
    const rows = await db.select().from(domainProof);
    expect(rows.map((r) => [r.domain, r.orgId, r.status]).sort()).toEqual([
      ["b.example.org", b.orgId, "verified"],
      ["shop.example.com", a.orgId, "verified"],
    ]);
    for (const r of rows) expect(Date.now() - r.lastSeenAt!.getTime()).toBeLessThan(60_000);
    expect((await getService({ ctx: a, envId: a.envId, name: "web" })).domainStatus["shop.example.com"]).toMatchObject({
      status: "verified",
      routable: true,
      lastCheck: { result: "routed before ownership proofs existed: create the TXT record to keep it routing" },
    });
    // Run twice (a retried migration): nothing more.
    await sql.unsafe(readFileSync(join(MIGRATIONS_DIR, "0015_domain_proof_upgrade.sql"), "utf8"));
    expect(await db.select().from(domainProof)).toHaveLength(2);
  });
});
