import type { EnvironmentSpec, SpecService } from "@levelrail/spec/env-spec";
import { type Locate, type SpecPath, where } from "@levelrail/spec/env-spec-read";
import { LevelrailError } from "@levelrail/spec/errors";
import { createApp, deleteApp } from "../app/app";
import type { Ctx } from "../context";
import { createDatabase, deleteDatabase, patchDatabase } from "../database/write";
import { putTierEnv } from "../env/vars";
import { deleteSecret, putSecret } from "../env/secrets";
import { deployService } from "../release/deploy";
import { createService, deleteService, patchService } from "../service/write";
import type { ApplyOptions, Ids } from "./apply";
import type { EnvironmentState } from "./export";
import { type Plan, type PlanItem, declaredImage } from "./plan";

/** The API's field names for the spec's names (an error of a verb is put back at the file's field). */
const SPEC_FIELD: Record<string, string> = { storageTargetId: "storageTarget", registryCredentialId: "registryCredential", targetId: "target", credentialId: "credential", apiCredentialId: "apiCredential" };

/** Runs a verb; its error names the object's place in the file (line and column) and the file's field. */
async function at<T>(locate: Locate, path: SpecPath, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof LevelrailError) || err.code === "internal" || err.code === "unavailable") throw err;
    const sub = err.field ? err.field.split(".").map((f) => SPEC_FIELD[f] ?? f) : [];
    const full = [...path, ...sub];
    const message = err.field && err.message.startsWith(`${err.field}: `) ? err.message.slice(err.field.length + 2) : err.message;
    throw new LevelrailError(err.code, `${where(locate, full)}: ${message}`, { field: full.join(".") });
  }
}

/** The API's service body for a spec's service: names of organization-level objects as ids. */
function serviceInput(s: SpecService, path: SpecPath, ids: Ids): Record<string, unknown> {
  const { storageTarget, registryCredential, secrets: _secrets, image: _image, source: _source, ...rest } = s;
  const image = declaredImage(s);
  const git = s.source?.git;
  const { credential, apiCredential, ...fields } = git ?? { credential: null, apiCredential: null };
  // The API's `source`, its git credentials as ids; a service declaring neither is the API's 400 naming `image`.
  const source = git
    ? {
        git: {
          ...fields,
          credentialId: ids.gitCredential(credential, [...path, "source", "git", "credential"]),
          apiCredentialId: ids.gitCredential(apiCredential, [...path, "source", "git", "apiCredential"]),
        },
      }
    : image === null
      ? undefined
      : { image };
  return {
    ...rest,
    ...(source ? { source } : {}),
    storageTargetId: ids.target(storageTarget, [...path, "storageTarget"]),
    registryCredentialId: ids.credential(registryCredential, [...path, "registryCredential"]),
  };
}

export interface StepInput {
  ctx: Ctx;
  envId: string;
  doc: EnvironmentSpec;
  state: EnvironmentState;
  plan: Plan;
  ids: Ids;
  locate: Locate;
  secrets: Record<string, string>;
  opts: ApplyOptions;
}

const of = (plan: Plan, kind: PlanItem["kind"], action: PlanItem["action"]) => plan.changes.filter((c) => c.kind === kind && c.action === action);

/**
 * Makes the plan's changes through the API's verbs, in the order references need: vars, apps,
 * databases, services, secrets, then deletions (services before the databases and apps they use),
 * then deploys. Returns the services it deployed.
 */
export async function runSteps({ ctx, envId, doc, state, plan, ids, locate, secrets, opts }: StepInput): Promise<string[]> {
  const desired = doc.spec;
  const touched = new Set<string>();
  if (plan.changes.some((c) => c.kind === "var")) {
    const vars = opts.prune ? desired.vars : { ...state.body.vars, ...desired.vars };
    await at(locate, ["spec", "vars"], () => putTierEnv({ ctx, tier: "environment", id: envId, input: { vars } }));
  }
  for (const c of of(plan, "app", "create")) await at(locate, c.path ?? [], () => createApp({ ctx, envId, input: { name: c.name } }));
  for (const c of plan.changes.filter((x) => x.kind === "database" && x.action !== "delete")) {
    const path = c.path ?? [];
    const d = desired.databases.find((x) => x.name === c.name)!;
    const schedule = d.backupSchedule && { cron: d.backupSchedule.cron, keep: d.backupSchedule.keep, targetId: ids.target(d.backupSchedule.target, [...path, "backupSchedule", "target"]) };
    if (c.action === "create") {
      const { backupSchedule: _s, ...rest } = d;
      await at(locate, path, () => createDatabase({ ctx, envId, input: { ...rest, backupSchedule: schedule } }));
    } else {
      await at(locate, path, () => patchDatabase({ ctx, envId, name: d.name, input: { backupSchedule: schedule } }));
    }
  }
  for (const c of plan.changes.filter((x) => x.kind === "service" && x.action !== "delete")) {
    const path = c.path ?? [];
    const s = desired.services.find((x) => x.name === c.name)!;
    const input = serviceInput(s, path, ids);
    touched.add(s.name);
    if (c.action === "create") {
      await at(locate, path, () => createService({ ctx, envId, input }));
    } else {
      const apiField = (f: string) => (f === "storageTarget" ? "storageTargetId" : f === "registryCredential" ? "registryCredentialId" : f === "image" ? "source" : f);
      const patch = Object.fromEntries(c.fields.map((f) => [apiField(f.field), input[apiField(f.field)]]));
      await at(locate, path, () => patchService({ ctx, envId, name: s.name, input: patch }));
    }
  }
  for (const c of plan.changes.filter((x) => x.kind === "secret" && x.action !== "delete")) {
    const [service, key] = c.name.split("/") as [string, string];
    touched.add(service);
    await at(locate, c.path ?? [], () => putSecret({ ctx, envId, name: service, key, input: { value: secrets[key] } }));
  }
  for (const c of of(plan, "secret", "delete")) {
    const [service, key] = c.name.split("/") as [string, string];
    touched.add(service);
    await at(locate, ["spec", "services"], () => deleteSecret({ ctx, envId, name: service, key }));
  }
  for (const c of of(plan, "service", "delete")) await at(locate, ["spec", "services"], () => deleteService({ ctx, envId, name: c.name }));
  for (const c of of(plan, "database", "delete")) await at(locate, ["spec", "databases"], () => deleteDatabase({ ctx, envId, name: c.name, dropData: false }));
  for (const c of of(plan, "app", "delete")) {
    // The last service of an app takes it along: one deleted above is gone already.
    await at(locate, ["spec", "apps"], () =>
      deleteApp({ ctx, envId, name: c.name }).catch((err: unknown) => {
        if (!(err instanceof LevelrailError && err.code === "not_found")) throw err;
      }),
    );
  }
  if (!opts.deploy) return [];
  const deployed = desired.services.map((s) => s.name).filter((n) => touched.has(n));
  for (const name of deployed) await at(locate, ["spec", "services"], () => deployService({ ctx, envId, name, input: {} }));
  return deployed;
}
