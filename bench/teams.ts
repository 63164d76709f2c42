/**
 * Teams (issue 23): what the role model costs each API request.
 *
 * - role check overhead p50: one token-authenticated read of a service as the web app serves it
 *   (`actorForToken`: token, user and memberships with their roles; then `getService`: the
 *   environment found among the projects the caller may see, the permission table consulted, the
 *   service read), minus the same request without the role model, measured in the same run on the
 *   same rows: the token and user lookup, the organization ids alone, the environment scoped by
 *   organization only, the service. Also for a member whose role holds on one project only (the
 *   finders then filter by project too).
 * - decide: the permission table's decision alone (in memory), per call.
 *
 * Needs DATABASE_URL (a PostgreSQL server; `npm run bench -- teams` starts one); works in a fresh
 * database of its own there, dropped at the end.
 */
import { createHash } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { actorForToken, createApiToken } from "@levelrail/auth";
import { createDb } from "@levelrail/db/client";
import { apiToken, user } from "@levelrail/db/schema/auth";
import { environment, membership } from "@levelrail/db/schema/orgs";
import { app, service } from "@levelrail/db/schema/services";
import { createApp } from "@levelrail/services/app/app";
import { decide } from "@levelrail/services/org/permissions";
import { createEnvironment } from "@levelrail/services/project/environment";
import { createProject } from "@levelrail/services/project/create";
import { getService } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedMember, seedOrg } from "@levelrail/testkit/seed";

const ROUNDS = Number(process.env.BENCH_TEAMS_ROUNDS ?? 2000);
const WARMUP = 200;

/** Nearest-rank percentile. */
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)]!;
const ms = (x: number) => x.toFixed(3);

const database = await freshDatabase(requireDatabaseUrl(), "bench_teams");
const { db, sql } = createDb(database.url, { max: 2 });
try {
  const owner = await seedOrg(db, "bench-teams");
  await createApp({ ctx: owner, envId: owner.envId, input: { name: "shop" } });
  await createService({ ctx: owner, envId: owner.envId, input: { name: "web", app: "shop", image: "registry.example.com/web:1", port: 80 } });
  // A second project the project-limited member works in, with the same app and service names.
  const p2 = await createProject({ ctx: owner, input: { name: "contracted", orgId: owner.orgId } });
  const e2 = await createEnvironment({ ctx: owner, projectId: p2.id, input: { name: "production" } });
  await createApp({ ctx: owner, envId: e2.id, input: { name: "shop" } });
  await createService({ ctx: owner, envId: e2.id, input: { name: "web", app: "shop", image: "registry.example.com/web:1", port: 80 } });
  const dev = await seedMember(db, owner, "bench-dev", "developer");
  const contractor = await seedMember(db, owner, "bench-contractor", "developer", p2.id);
  const devToken = await createApiToken(db, dev.email, "bench");
  const contractorToken = await createApiToken(db, contractor.email, "bench");

  /** The request with the role model: what `route()` and the verb do for GET …/services/web. */
  const withRoles = async (token: string, envId: string) => {
    const actor = await actorForToken(db, token);
    if (!actor) throw new Error("token refused");
    await getService({ ctx: { db, actor, kit: owner.kit }, envId, name: "web" });
  };
  /** The same request as before the role model: the same queries, minus roles, projects and the table. */
  const withoutRoles = async (token: string, envId: string) => {
    const hash = createHash("sha256").update(token).digest("hex");
    const [row] = await db.select({ userId: apiToken.userId, id: apiToken.id }).from(apiToken).innerJoin(user, eq(user.id, apiToken.userId)).where(eq(apiToken.tokenHash, hash));
    if (!row) throw new Error("token refused");
    await db.update(apiToken).set({ lastUsedAt: new Date() }).where(eq(apiToken.id, row.id));
    const orgIds = (await db.select({ orgId: membership.orgId }).from(membership).where(eq(membership.userId, row.userId))).map((m) => m.orgId);
    const [env] = await db.select().from(environment).where(and(eq(environment.id, envId), inArray(environment.orgId, orgIds)));
    if (!env) throw new Error("environment not found");
    const [s] = await db
      .select({ service, appName: app.name })
      .from(service)
      .innerJoin(app, eq(app.id, service.appId))
      .where(and(eq(service.environmentId, env.id), eq(service.name, "web"), inArray(service.orgId, orgIds)));
    if (!s) throw new Error("service not found");
  };

  /** p50 of each variant, interleaved round by round so drift on a shared machine hits all alike. */
  async function measure(variants: Record<string, () => Promise<void>>): Promise<Record<string, number>> {
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      for (const [name, run] of Object.entries(variants)) {
        const t0 = performance.now();
        await run();
        if (i >= WARMUP) times[name]!.push(performance.now() - t0);
      }
    }
    return Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, percentile(xs, 50)]));
  }

  const p50 = await measure({
    baseline: () => withoutRoles(devToken, owner.envId),
    roles: () => withRoles(devToken, owner.envId),
    project: () => withRoles(contractorToken, e2.id),
  });

  const actor = (await actorForToken(db, devToken))!;
  const N = 1_000_000;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) decide(actor.memberships, actor.orgIds, "service.deploy", { orgId: owner.orgId, projectId: owner.projectId });
  const decideUs = ((performance.now() - t0) * 1000) / N;

  console.log(`rounds: ${ROUNDS} per variant (after ${WARMUP} warm-up), one API read of a service each`);
  console.log(`request p50 without the role model (baseline): ${ms(p50.baseline!)} ms`);
  console.log(`request p50 with the role model, organization-wide developer: ${ms(p50.roles!)} ms (${(p50.roles! / p50.baseline!).toFixed(2)}× baseline)`);
  console.log(`request p50 with the role model, developer on one project: ${ms(p50.project!)} ms (${(p50.project! / p50.baseline!).toFixed(2)}× baseline)`);
  console.log(`role check overhead p50: ${ms(p50.roles! - p50.baseline!)} ms (one project only: ${ms(p50.project! - p50.baseline!)} ms)`);
  console.log(`permission table decision: ${decideUs.toFixed(3)} µs per call`);
} finally {
  await sql.end({ timeout: 5 });
  await database.drop();
}
