/**
 * The audit log's two costs, measured against the real PostgreSQL (a fresh database):
 *
 * audit write overhead p50: the extra time one write takes for its entry. The same change (a project
 *   inserted in a transaction) with and without `recordAudit` in its transaction, interleaved, 400 of
 *   each; the figure is the difference of the two medians (the baseline is printed too).
 * audit query 1M entries: one filtered page (`listAudit`, 50 entries) over 1,000,000 entries of one
 *   organization (20 actions, 50 actors, 5,000 targets), the median of 20 queries for each filter
 *   (action, actor, target, a time window, a cursor deep in the log); the figure is the slowest filter's
 *   median. Goal: under 100 ms.
 *
 * `npm run bench -- teams` (or `-- audit`), or `DATABASE_URL=… node --import tsx bench/audit.ts`.
 */
import { performance } from "node:perf_hooks";
import { sql as dsql } from "drizzle-orm";
import { createDb } from "@levelrail/db/client";
import { project } from "@levelrail/db/schema/orgs";
import { listAudit } from "@levelrail/services/audit/list";
import { recordAudit } from "@levelrail/services/audit/record";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => x.toFixed(2);

const database = await freshDatabase(requireDatabaseUrl(), "bench-audit");
const { db, sql } = createDb(database.url, { max: 4 });
try {
  const o = await seedOrg(db, "bench-audit");
  const source = { actor: { type: "user" as const, id: o.actor.userId, name: o.actor.email }, ip: "127.0.0.1" };

  // 1. Write overhead.
  const plain: number[] = [];
  const audited: number[] = [];
  for (let i = 0; i < 420; i++) {
    for (const withAudit of [false, true]) {
      const t0 = performance.now();
      await db.transaction(async (tx) => {
        const [p] = await tx.insert(project).values({ orgId: o.orgId, name: `p-${i}-${withAudit ? "a" : "b"}` }).returning({ id: project.id });
        if (withAudit) await recordAudit(tx, source, { orgId: o.orgId, action: "project.create", target: { type: "project", id: p!.id, name: `p-${i}` }, fields: ["name"] });
      });
      if (i >= 20) (withAudit ? audited : plain).push(performance.now() - t0);
    }
  }
  console.log(`write p50 without audit: ${ms(median(plain))} ms, with: ${ms(median(audited))} ms`);
  console.log(`audit write overhead p50: ${ms(median(audited) - median(plain))}`);

  // 2. One filtered page over a million entries.
  const t0 = performance.now();
  for (let chunk = 0; chunk < 10; chunk++) {
    await db.execute(dsql`
      insert into audit_entry (org_id, at, actor_type, actor_id, actor_name, action, target_type, target_id, target_name, fields, source_ip)
      select ${o.orgId}::uuid, now() - ((1000000 - g) * interval '30 seconds'), 'user', 'user-' || (g % 50), 'user' || (g % 50) || '@example.com',
             (array['service.deploy','service.update','service.create','service.delete','secret.set','secret.delete','env.set','app.create','app.delete',
                    'database.create','database.update','backup.create','backup.restore','project.create','environment.create','environment.clone',
                    'notification-channel.create','backup-target.create','registry-credential.create','service.restart'])[1 + g % 20],
             'service', 'target-' || (g % 5000), 'svc-' || (g % 5000), array['image','port'], '127.0.0.1'
      from generate_series(${chunk * 100_000 + 1}::int, ${(chunk + 1) * 100_000}::int) g`);
  }
  await db.execute(dsql`analyze audit_entry`);
  console.log(`inserted 1,000,000 entries in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const [mid] = await db.execute<{ id: string }>(dsql`select id::text as id from audit_entry where org_id = ${o.orgId} order by id desc offset 500000 limit 1`);
  const since = new Date(Date.now() - 3 * 86_400_000).toISOString();
  const until = new Date(Date.now() - 2 * 86_400_000).toISOString();
  const filters: Record<string, Record<string, string>> = {
    "no filter": {},
    action: { action: "secret.set" },
    actor: { actor: "user-7" },
    target: { target: "target-4242" },
    "action+actor": { action: "service.deploy", actor: "user-20" },
    "time window": { since, until },
    "cursor at 500k": { cursor: mid!.id, action: "env.set" },
  };
  let worst = 0;
  for (const [name, input] of Object.entries(filters)) {
    const times: number[] = [];
    let n = 0;
    for (let i = 0; i < 21; i++) {
      const t = performance.now();
      const page = await listAudit({ ctx: o, orgId: o.orgId, input });
      if (i > 0) times.push(performance.now() - t);
      n = page.entries.length;
    }
    worst = Math.max(worst, median(times));
    console.log(`  ${name}: ${ms(median(times))} ms (${n} entries)`);
  }
  console.log(`audit query 1M entries: ${ms(worst)}`);
} finally {
  await sql.end({ timeout: 5 });
  await database.drop();
}
