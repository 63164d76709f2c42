import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@levelrail/db/client";
import { environment } from "@levelrail/db/schema/orgs";
import type { EnvironmentSpec, SpecService } from "@levelrail/spec/env-spec";
import { type Locate, type SpecPath, specOrThrow, where } from "@levelrail/spec/env-spec-read";
import { LevelrailError } from "@levelrail/spec/errors";
import { envKey, envValue } from "@levelrail/spec/rules";
import { type Ctx, parse } from "../context";
import { findEnvironment } from "../project/list";
import { type EnvironmentState, readEnvironment } from "./export";
import { type Plan, planSpec } from "./plan";
import { runSteps } from "./steps";

type Tx = Parameters<Parameters<Ctx["db"]["transaction"]>[0]>[0];

/** POST …/apply's body: the spec (its YAML text, or the document as JSON) and secret values by key. */
const applyBody = z
  .object({
    spec: z.unknown().refine((v) => v !== undefined, "is required"),
    secrets: z.record(envKey, envValue).default({}),
  })
  .strict();

/**
 * The body as `{spec, secrets}`. The exported document itself is taken too, as `kubectl apply -f` users
 * send it: its YAML text (a string), or the JSON document `GET …/spec` answers (an object with
 * `apiVersion` at its top, which the envelope never has). Secrets then need the envelope.
 */
export function envelopeOf(input: unknown): unknown {
  if (typeof input === "string") return { spec: input };
  if (input !== null && typeof input === "object" && !Array.isArray(input) && Object.hasOwn(input, "apiVersion")) return { spec: input };
  return input;
}

export interface ApplyOptions {
  prune?: boolean;
  force?: boolean;
  deploy?: boolean;
  dryRun?: boolean;
}

export interface ApplyResult {
  plan: Plan;
  /** False for a dry run. */
  applied: boolean;
  /** The environment's version after the apply (a dry run: now). */
  resourceVersion: string;
  /** True when the file's resourceVersion is not the environment's (a dry run says so; apply refuses unless forced). */
  stale: boolean;
  deployed: string[];
}

/** Organization-level names in the file, as ids: 400 at the name's line for none or several. */
export interface Ids {
  target: (name: string | null, path: SpecPath) => string | null;
  credential: (name: string | null, path: SpecPath) => string | null;
  gitCredential: (name: string | null, path: SpecPath) => string | null;
}

function idsOf(state: EnvironmentState, locate: Locate): Ids {
  const pick = (list: { id: string; name: string }[], what: string) => (name: string | null, path: SpecPath) => {
    if (name === null) return null;
    const found = list.filter((x) => x.name === name);
    if (found.length === 1) return found[0]!.id;
    const why = found.length ? `${found.length} ${what}s of this organization are named ${name}; rename one` : `no ${what} named ${name} in this organization; create it first (Settings, or the API)`;
    throw new LevelrailError("invalid_input", `${where(locate, path)}: ${why}`, { field: path.join(".") });
  };
  return { target: pick(state.targets, "backup target"), credential: pick(state.credentials, "registry credential"), gitCredential: pick(state.gitCredentials, "git credential") };
}

/** Every reference by name resolves, before anything is planned or written. */
function checkRefs(doc: EnvironmentSpec, ids: Ids) {
  doc.spec.services.forEach((s: SpecService, i) => {
    ids.target(s.storageTarget, ["spec", "services", i, "storageTarget"]);
    ids.credential(s.registryCredential, ["spec", "services", i, "registryCredential"]);
    ids.gitCredential(s.source?.git?.credential ?? null, ["spec", "services", i, "source", "git", "credential"]);
    ids.gitCredential(s.source?.git?.apiCredential ?? null, ["spec", "services", i, "source", "git", "apiCredential"]);
  });
  doc.spec.databases.forEach((d, i) => ids.target(d.backupSchedule?.target ?? null, ["spec", "databases", i, "backupSchedule", "target"]));
}

/** The file's version is checked only against the environment it was exported from (applying it elsewhere is a copy). */
function isStale(doc: EnvironmentSpec, state: EnvironmentState): boolean {
  const { project, environment: envName, resourceVersion } = doc.metadata;
  return resourceVersion !== undefined && project === state.project && envName === state.env.name && resourceVersion !== state.resourceVersion;
}

function checkSecrets(doc: EnvironmentSpec, secrets: Record<string, string>) {
  const listed = new Set(doc.spec.services.flatMap((s) => s.secrets));
  for (const key of Object.keys(secrets)) {
    if (!listed.has(key)) throw new LevelrailError("invalid_input", `secrets.${key}: no service of the spec lists ${key} in its secrets`, { field: `secrets.${key}` });
  }
}

/**
 * POST …/apply: makes the environment match the spec in one transaction (all or nothing), through
 * the verbs the API uses (each checks its own role, writes its own audit entry). `dryRun` answers
 * the plan and writes nothing.
 */
export async function applySpec({ ctx, envId, input, opts = {} }: { ctx: Ctx; envId: string; input: unknown; opts?: ApplyOptions }): Promise<ApplyResult> {
  const env = await findEnvironment(ctx, envId, opts.dryRun ? "spec.read" : "spec.apply");
  const body = parse(applyBody, envelopeOf(input));
  const { spec: doc, locate } = specOrThrow(body.spec);
  checkSecrets(doc, body.secrets);
  const planOf = (state: EnvironmentState) => {
    checkRefs(doc, idsOf(state, locate));
    return planSpec({ current: state.body, desired: doc.spec, running: state.running, secretKeys: Object.keys(body.secrets), prune: opts.prune === true });
  };
  if (opts.dryRun) {
    const state = await readEnvironment(ctx, env);
    return { plan: planOf(state), applied: false, resourceVersion: state.resourceVersion, stale: isStale(doc, state), deployed: [] };
  }
  return ctx.db.transaction(async (tx: Tx) => {
    // Two applies of one environment take turns: the second sees the first's version.
    await tx.select({ id: environment.id }).from(environment).where(eq(environment.id, env.id)).for("update");
    // The verbs run on this transaction (theirs become savepoints): a failure anywhere undoes everything.
    const inTx: Ctx = { ...ctx, db: tx as unknown as Db };
    const state = await readEnvironment(inTx, env);
    const stale = isStale(doc, state);
    if (stale && !opts.force) {
      throw new LevelrailError(
        "conflict",
        `metadata.resourceVersion: environment ${state.project}/${state.env.name} changed since ${doc.metadata.resourceVersion} was exported (it is ${state.resourceVersion} now); export it again, or apply with --force`,
        { field: "metadata.resourceVersion" },
      );
    }
    const plan = planOf(state);
    const refused = plan.changes.find((c) => c.refused);
    if (refused) throw new LevelrailError("invalid_input", `${where(locate, refused.path ?? [])}: ${refused.refused}`, { field: (refused.path ?? []).join(".") });
    if (plan.changes.length === 0) return { plan, applied: true, resourceVersion: state.resourceVersion, stale, deployed: [] };
    const deployed = await runSteps({ ctx: inTx, envId: env.id, doc, state, plan, ids: idsOf(state, locate), locate, secrets: body.secrets, opts });
    const after = await readEnvironment(inTx, env);
    return { plan, applied: true, resourceVersion: after.resourceVersion, stale, deployed };
  });
}
export { applyBody as applyInput };
