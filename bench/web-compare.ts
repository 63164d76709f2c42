/**
 * The browser's first loads (bench/web-figures.ts) of several builds of the web app over the same
 * fleet: 1,000 service records in 20 apps, none deployed (no worker, no containers: the pages and
 * their data are what is measured, not the engine). Not part of `npm run bench`; run by hand, e.g.
 * to compare a branch's build with main's:
 *   DATABASE_URL=<a server's URL> CMP_DIRS="before=/path/to/main/apps/web,after=apps/web" npx tsx bench/web-compare.ts
 * Each directory must hold a `next build` (its .next).
 */
import { randomBytes } from "node:crypto";
import { actorFor, createAuth, createOperator } from "@levelrail/auth";
import { createDb } from "@levelrail/db/client";
import { createApp } from "@levelrail/services/app/app";
import { bootstrapOrg } from "@levelrail/services/org/create";
import { setOrgQuotas } from "@levelrail/services/org/quota";
import { createService } from "@levelrail/services/service/write";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { testKit } from "@levelrail/testkit/seed";
import { pool } from "./fleet";
import { webFigures } from "./web-figures";

const database = await freshDatabase(requireDatabaseUrl(), "webcmp");
const { db, sql } = createDb(database.url);
const kit = testKit();
const who = { email: `cmp-${randomBytes(4).toString("hex")}@bench.levelrail.local`, password: randomBytes(18).toString("base64url") };
const operator = await createOperator(createAuth({ db, masterKey: Buffer.from(kit.masterKey, "base64"), baseURL: "http://127.0.0.1", trustedOrigins: [] }), who.email, who.password);
const { org, environment } = await bootstrapOrg(db, operator.id, `cmp-${randomBytes(3).toString("hex")}`);
const ctx = { db, actor: await actorFor(db, operator.id, operator.email), kit, envId: environment!.id, shortName: "lrpg", allowPrivateTargets: true };
await setOrgQuotas(db, org.id, { apps: 20, services: 1000 }, undefined);
const apps = Array.from({ length: 20 }, (_, i) => `app${String(i).padStart(2, "0")}`);
for (const name of apps) await createApp({ ctx, envId: ctx.envId, input: { name } });
const names = Array.from({ length: 1000 }, (_, i) => `svc${String(i).padStart(4, "0")}`);
await pool(names, 4, (name) => createService({ ctx, envId: ctx.envId, input: { name, app: apps[Number(name.slice(3)) % 20]!, image: "levelrail-test/web:v1", port: 8080, healthPath: "/healthz" } }));
console.error("fleet created");
for (const [label, webDir] of (process.env.CMP_DIRS ?? "").split(",").map((x) => x.split("=") as [string, string])) {
  const w = await webFigures({ databaseUrl: database.url, masterKey: kit.masterKey, who, service: names[0]!, idleMs: 5000, log: (l) => console.error(l), webDir });
  console.log(`${label}: dashboard ${w.dashboardKB.toFixed(1)} kB, service page ${w.servicePageKB.toFixed(1)} kB, framework ${w.frameworkKB.toFixed(1)} kB`);
  for (const p of w.pages) console.log(`${label}:   ${p.route} ${p.kB === null ? "-" : `${p.kB.toFixed(1)} kB`}`);
}
await sql.end();
