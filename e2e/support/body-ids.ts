// Ids inside request bodies: every field of a route's input that names another resource by id (or
// a database by name), put there by an organization about its OWN resource in the path. Another
// organization's id must answer what an id naming nothing answers (404 or 400) and write nothing.
// The list is checked against the input schemas themselves, so a new id-bearing field without a
// case here fails the tenancy spec.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { API_ROUTES, type ApiRoute, type Ids } from "./api-routes";

export interface BodyIdCase {
  method: ApiRoute["method"];
  /** The caller's own resource (filled with the caller's ids, like API_ROUTES' paths). */
  path: string;
  /** The id-bearing field (dotted when nested). */
  field: string;
  /** The body, with `ref`'s ids (another organization's, or ids naming nothing) in `field`. */
  body: (ref: Ids) => Record<string, unknown>;
}

const S = "/api/v1/environments/{envId}/services/{service}";
const D = "/api/v1/environments/{envId}/databases/{db}";
const newService = { name: "intruder", app: "shop", image: "nginx:1", port: 80 };
const gitService = { name: "intruder", app: "shop", port: 80 };
/** A source whose provider API names `r`'s git credential as its token (checked as written: no connection). */
const providerApi = (r: Ids) => ({ url: "https://git.example.com/x.git", apiProvider: "github", apiUrl: "https://api.github.com", apiCredentialId: r.gitCredentialId });
const schedule = (targetId: string) => ({ cron: "0 3 * * *", targetId, keep: 3 });

export const BODY_ID_CASES: BodyIdCase[] = [
  { method: "POST", path: "/api/v1/environments/{envId}/services", field: "registryCredentialId", body: (r) => ({ ...newService, registryCredentialId: r.registryCredentialId }) },
  { method: "POST", path: "/api/v1/environments/{envId}/services", field: "storageTargetId", body: (r) => ({ ...newService, storageTargetId: r.backupTargetId }) },
  { method: "POST", path: "/api/v1/environments/{envId}/services", field: "databaseEnv", body: (r) => ({ ...newService, databaseEnv: { DATABASE_URL: { from: r.database } } }) },
  { method: "POST", path: "/api/v1/environments/{envId}/services", field: "environmentId", body: (r) => ({ ...newService, environmentId: r.envId }) },
  { method: "PATCH", path: S, field: "registryCredentialId", body: (r) => ({ registryCredentialId: r.registryCredentialId }) },
  { method: "POST", path: "/api/v1/environments/{envId}/services", field: "source.git.credentialId", body: (r) => ({ ...gitService, source: { git: { url: "git@git.example.com:x.git", credentialId: r.gitCredentialId } } }) },
  { method: "PATCH", path: S, field: "source.git.credentialId", body: (r) => ({ source: { git: { url: "git@git.example.com:x.git", credentialId: r.gitCredentialId } } }) },
  { method: "POST", path: "/api/v1/environments/{envId}/services", field: "source.git.apiCredentialId", body: (r) => ({ ...gitService, source: { git: providerApi(r) } }) },
  { method: "PATCH", path: S, field: "source.git.apiCredentialId", body: (r) => ({ source: { git: providerApi(r) } }) },
  { method: "PATCH", path: S, field: "storageTargetId", body: (r) => ({ storageTargetId: r.backupTargetId }) },
  { method: "PATCH", path: S, field: "databaseEnv", body: (r) => ({ databaseEnv: { DATABASE_URL: { from: r.database } } }) },
  { method: "POST", path: `${S}/promote`, field: "to", body: (r) => ({ to: r.envId }) },
  { method: "POST", path: "/api/v1/projects/{id}/environments", field: "from", body: (r) => ({ name: "intruder", from: r.envId }) },
  { method: "POST", path: "/api/v1/environments/{envId}/databases", field: "backupSchedule.targetId", body: (r) => ({ name: "intruder", version: "15", backupSchedule: schedule(r.backupTargetId) }) },
  { method: "PATCH", path: D, field: "backupSchedule.targetId", body: (r) => ({ backupSchedule: schedule(r.backupTargetId) }) },
  { method: "POST", path: `${D}/backups`, field: "targetId", body: (r) => ({ targetId: r.backupTargetId }) },
  { method: "POST", path: `${D}/restore`, field: "backupId", body: (r) => ({ backupId: r.backupId, into: "intruder" }) },
  { method: "POST", path: `${D}/restore`, field: "backupId", body: (r) => ({ backupId: r.backupId, replace: true }) },
  { method: "POST", path: "/api/v1/projects", field: "orgId", body: (r) => ({ name: "intruder", orgId: r.orgId }) },
  { method: "PUT", path: "/api/v1/me/environment", field: "environmentId", body: (r) => ({ environmentId: r.envId }) },
  { method: "PUT", path: "/api/v1/projects/{id}/previews", field: "baseEnvironmentId", body: (r) => ({ baseEnvironmentId: r.envId, domain: "preview.localhost", max: 2, ttlHours: 24 }) },
];

/** Fields named in input schemas that are not a request's: why each is left out. */
const NOT_REQUEST_INPUT: Record<string, string> = {
  appId: "packages/spec/src/dataplane.ts: the data plane's state file, written by the worker",
  taskId: "packages/spec/src/dataplane.ts: a swarm node agent's readings of its node's tasks, sent to the manager's mesh DNS on the control overlay, never to the panel",
  clientId: "packages/services/src/org/sso-rules.ts: the OpenID client id at the organization's own identity provider, no resource of the panel",
};

/** Every `.ts` file under `dir` but tests. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [full] : [];
  });
}

/**
 * The id-bearing fields of every zod input schema of the service layer and the shared spec: a field
 * declared as a UUID (`z.string().uuid(…)`, `.refine(isUuid, …)`), any `…Id` field, and
 * `databaseEnv` (a database named in the caller's environment). Last segment only.
 */
export function idFieldsInSchemas(repoRoot: string): Set<string> {
  const found = new Set<string>(["databaseEnv"]);
  for (const file of [...sources(join(repoRoot, "packages", "spec", "src")), ...sources(join(repoRoot, "packages", "services", "src"))]) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      // Each field's own declaration: from its name to the next field's (several may share a line).
      const starts = [...line.matchAll(/\b(?:const\s+)?(\w+)\s*[:=]\s*z\s*\./g)];
      starts.forEach((m, i) => {
        const own = line.slice(m.index, starts[i + 1]?.index ?? line.length);
        const name = m[1]!;
        if (name.endsWith("Id") || (/^(?:const\s+)?\w+\s*[:=]\s*z\s*\.\s*string\(/.test(own) && /uuid\(|isUuid/.test(own))) found.add(name);
      });
    }
  }
  // Not a request's input: left out, each with its reason.
  for (const name of Object.keys(NOT_REQUEST_INPUT)) found.delete(name);
  return found;
}

/** The fields the walk puts ids in: the body cases, and the bodies and queries of API_ROUTES' `input` routes. */
export function coveredIdFields(probe: Ids): Set<string> {
  const ids = new Set(Object.values(probe));
  const covered = new Set(BODY_ID_CASES.map((c) => c.field.split(".").at(-1)!));
  for (const r of API_ROUTES.filter((x) => x.kind === "input")) {
    for (const part of [r.body?.(probe), r.query?.(probe)]) {
      if (part && typeof part === "object") for (const [k, v] of Object.entries(part)) if (typeof v === "string" && ids.has(v)) covered.add(k);
    }
  }
  return covered;
}
