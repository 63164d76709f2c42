import type { SpecBody, SpecDatabase, SpecService } from "@levelrail/spec/env-spec";
import { canonical } from "./export";

/**
 * What `apply` would do (docs/operating/projects-environments-spec.md#config-as-code-export-diff-apply), computed from what the environment declares now and what
 * the file says: pure, so it is tested as a table. Secret values never appear: a secret's entry
 * names its key only.
 */

export type PlanKind = "var" | "app" | "service" | "database" | "secret";

export interface FieldChange {
  field: string;
  /** Absent for a secret (never shown) and for a field the object did not have. */
  from?: unknown;
  to?: unknown;
}

export interface PlanItem {
  action: "create" | "change" | "delete";
  kind: PlanKind;
  /** `web`, a var's key, a secret's `web/KEY`. */
  name: string;
  fields: FieldChange[];
  /** Where in the file it is (`spec.services.2`), for errors. */
  path?: (string | number)[];
  /** Why apply cannot make this change (a database's version does not change in place). */
  refused?: string;
}

export interface Plan {
  /** What apply makes: creations, changes, and (with prune) deletions. */
  changes: PlanItem[];
  /** What the file leaves out and apply without prune keeps. */
  left: PlanItem[];
  /** Secrets the file names that the environment lacks and the caller gives no value for. */
  missingSecrets: { service: string; key: string }[];
  /** Services whose running image is not their declared one. */
  drift: { service: string; declared: string; running: string }[];
}

export interface PlanInput {
  current: SpecBody;
  desired: SpecBody;
  /** Running image per service name. */
  running: Record<string, string>;
  /** The keys the caller gives values for (they are set, whether or not they exist). */
  secretKeys: string[];
  prune: boolean;
}

const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

/** A database's image when the file leaves it out: what the API gives it. */
export const databaseImage = (d: SpecDatabase): string => d.image ?? `postgres:${d.version}`;

/** The image a spec's service declares: its `image` or `source.image`; null for a git-sourced one (its builds make it). */
export const declaredImage = (s: SpecService): string | null => (s.source?.git ? null : (s.source?.image ?? s.image ?? null));

/** A service as the plan compares it: `image` and `source` each said one way only. */
const comparable = (s: SpecService) => ({ ...s, image: declaredImage(s), source: s.source?.git ?? null });

const SERVICE_FIELDS = ["app", "image", "source", "port", "healthPath", "readyBudgetSeconds", "strategy", "env", "databaseEnv", "storageTarget", "registryCredential", "hooks", "domains", "resources", "replicas", "placement"] as const;

function serviceFields(fromSpec: SpecService, toSpec: SpecService): FieldChange[] {
  const from = comparable(fromSpec);
  const to = comparable(toSpec);
  return SERVICE_FIELDS.filter((f) => !same(from[f], to[f])).map((f) => ({ field: f, from: from[f], to: to[f] }));
}

function databaseFields(from: SpecDatabase, to: SpecDatabase): FieldChange[] {
  // A placement left out is none (the manager's engine); it is fixed once made, like the version.
  const a = { engine: from.engine, version: from.version, image: databaseImage(from), placement: from.placement ?? {}, backupSchedule: from.backupSchedule };
  const b = { engine: to.engine, version: to.version, image: databaseImage(to), placement: to.placement ?? {}, backupSchedule: to.backupSchedule };
  return (Object.keys(a) as (keyof typeof a)[]).filter((f) => !same(a[f], b[f])).map((f) => ({ field: f, from: a[f], to: b[f] }));
}

export function planSpec({ current, desired, running, secretKeys, prune }: PlanInput): Plan {
  const changes: PlanItem[] = [];
  const left: PlanItem[] = [];
  const gone = (item: PlanItem) => (prune ? changes : left).push(item);

  for (const [key, value] of Object.entries(desired.vars)) {
    if (!(key in current.vars)) changes.push({ action: "create", kind: "var", name: key, fields: [{ field: "value", to: value }], path: ["spec", "vars", key] });
    else if (current.vars[key] !== value) changes.push({ action: "change", kind: "var", name: key, fields: [{ field: "value", from: current.vars[key], to: value }], path: ["spec", "vars", key] });
  }
  for (const key of Object.keys(current.vars)) if (!(key in desired.vars)) gone({ action: "delete", kind: "var", name: key, fields: [] });

  const appNames = new Set(current.apps.map((a) => a.name));
  desired.apps.forEach((a, i) => {
    if (!appNames.has(a.name)) changes.push({ action: "create", kind: "app", name: a.name, fields: [], path: ["spec", "apps", i] });
  });

  desired.databases.forEach((d, i) => {
    const now = current.databases.find((x) => x.name === d.name);
    const path = ["spec", "databases", i];
    if (!now) return void changes.push({ action: "create", kind: "database", name: d.name, fields: [], path });
    const fields = databaseFields(now, d);
    if (!fields.length) return;
    const fixed = fields.find((f) => f.field !== "backupSchedule");
    const item: PlanItem = { action: "change", kind: "database", name: d.name, fields, path };
    if (fixed) item.refused = `${fixed.field} of a database does not change in place; create a new database (or restore a backup into one) and switch to it`;
    changes.push(item);
  });

  const missingSecrets: Plan["missingSecrets"] = [];
  desired.services.forEach((s, i) => {
    const now = current.services.find((x) => x.name === s.name);
    const path = ["spec", "services", i];
    if (!now) changes.push({ action: "create", kind: "service", name: s.name, fields: [], path });
    else {
      const fields = serviceFields(now, s);
      if (fields.length) {
        const item: PlanItem = { action: "change", kind: "service", name: s.name, fields, path };
        if (fields.some((f) => f.field === "app")) item.refused = `a service does not move to another app; delete ${s.name} and create it again`;
        changes.push(item);
      }
    }
    const has = new Set(now?.secrets ?? []);
    s.secrets.forEach((key, j) => {
      const at = [...path, "secrets", j];
      if (secretKeys.includes(key)) changes.push({ action: has.has(key) ? "change" : "create", kind: "secret", name: `${s.name}/${key}`, fields: [{ field: "value" }], path: at });
      else if (!has.has(key)) missingSecrets.push({ service: s.name, key });
    });
    for (const key of now?.secrets ?? []) if (!s.secrets.includes(key)) gone({ action: "delete", kind: "secret", name: `${s.name}/${key}`, fields: [] });
  });

  const desiredServices = new Set(desired.services.map((s) => s.name));
  for (const s of current.services) if (!desiredServices.has(s.name)) gone({ action: "delete", kind: "service", name: s.name, fields: [] });
  const desiredDbs = new Set(desired.databases.map((d) => d.name));
  for (const d of current.databases) if (!desiredDbs.has(d.name)) gone({ action: "delete", kind: "database", name: d.name, fields: [] });
  const desiredApps = new Set(desired.apps.map((a) => a.name));
  for (const a of current.apps) if (!desiredApps.has(a.name)) gone({ action: "delete", kind: "app", name: a.name, fields: [] });

  const drift: Plan["drift"] = [];
  // What runs against what the file declares (a service it leaves out: against what the environment declares).
  for (const s of [...desired.services, ...current.services.filter((c) => !desiredServices.has(c.name))]) {
    const image = running[s.name];
    const declared = declaredImage(s);
    if (image !== undefined && declared !== null && image !== declared) drift.push({ service: s.name, declared, running: image });
  }
  return { changes, left, missingSecrets, drift };
}

/** Whether a plan has anything to do or report (diff's exit code 2). */
export const planIsEmpty = (p: Plan): boolean => p.changes.length === 0 && p.missingSecrets.length === 0 && p.drift.length === 0;
