/**
 * Config as code (issue 24): what `levelrail apply` and `levelrail diff` cost for an environment of
 * 100 services, server side (the verbs the API routes call; the HTTP hop is not counted).
 *
 * - apply 100 services: one apply of a spec with 10 apps and 100 services (each with env vars, a
 *   domain and a secret given by the caller) to an empty environment: one transaction, through the
 *   API's own verbs (each checks its role and quota and writes its audit entry). Median of 3, each
 *   into a fresh environment.
 * - diff 100 services: a dry run of the same spec against the environment it was applied to (YAML
 *   read and checked, the environment read, the plan), one image changed. Median of 10.
 *
 * Needs DATABASE_URL (`npm run bench -- spec` starts one); works in a fresh database, dropped at the end.
 */
import { createDb } from "@levelrail/db/client";
import { createEnvironment } from "@levelrail/services/project/environment";
import { applySpec } from "@levelrail/services/spec/apply";
import type { EnvironmentSpec } from "@levelrail/spec/env-spec";
import { specText } from "@levelrail/spec/env-spec-read";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";

const SERVICES = 100;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function specOf(run: string): EnvironmentSpec {
  const apps = Array.from({ length: 10 }, (_, i) => ({ name: `app-${i}` }));
  const services = Array.from({ length: SERVICES }, (_, i) => ({
    name: `svc-${i}`,
    app: `app-${i % 10}`,
    image: `registry.example.com/svc-${i}:1.0`,
    port: 8000 + i,
    healthPath: "/healthz",
    readyBudgetSeconds: 60,
    strategy: "blue-green" as const,
    env: { LOG_LEVEL: "info", INDEX: String(i) },
    databaseEnv: {},
    storageTarget: null,
    registryCredential: null,
    hooks: { preDeploy: null, postDeploy: null, timeoutSeconds: 300 },
    domains: [`svc-${i}-${run}.localhost`],
    resources: { memoryMb: null, cpus: null, pids: 4096, capAdd: [] },
    replicas: 1,
    placement: {},
    secrets: ["API_KEY"],
  }));
  return { apiVersion: "levelrail.dev/v1", kind: "Environment", metadata: { project: "bench", environment: run }, spec: { vars: { REGION: "eu" }, apps, services, databases: [] } };
}

const database = await freshDatabase(requireDatabaseUrl(), "bench_spec");
const { db, sql } = createDb(database.url, { max: 4 });
try {
  const owner = await seedOrg(db, "bench-spec");
  const ctx = { ...owner, quotas: { apps: 1000, services: 1000, databases: 20, domains: 1000, channels: 20 } };
  const applies: number[] = [];
  let last = { envId: "", text: "" };
  for (let r = 0; r < 3; r++) {
    const env = await createEnvironment({ ctx, projectId: owner.projectId, input: { name: `run-${r}` } });
    const text = specText(specOf(`run-${r}`));
    const t0 = performance.now();
    const res = await applySpec({ ctx, envId: env.id, input: { spec: text, secrets: { API_KEY: "bench-secret-value" } } });
    applies.push(performance.now() - t0);
    if (res.plan.changes.length !== 1 + 10 + SERVICES * 2) throw new Error(`unexpected plan: ${res.plan.changes.length} changes`);
    last = { envId: env.id, text };
  }
  const diffs: number[] = [];
  const changed = last.text.replace("registry.example.com/svc-7:1.0", "registry.example.com/svc-7:2.0");
  for (let r = 0; r < 10; r++) {
    const t0 = performance.now();
    const res = await applySpec({ ctx, envId: last.envId, input: { spec: changed }, opts: { dryRun: true } });
    diffs.push(performance.now() - t0);
    if (res.plan.changes.length !== 1) throw new Error(`unexpected diff: ${res.plan.changes.length} changes`);
  }
  console.log(`apply ${SERVICES} services: ${median(applies).toFixed(0)} ms (median of 3: ${applies.map((x) => x.toFixed(0)).join(", ")}; goal under 2,000)`);
  console.log(`diff ${SERVICES} services: ${median(diffs).toFixed(0)} ms (median of 10; goal under 1,000)`);
} finally {
  await sql.end({ timeout: 5 });
  await database.drop();
}
