import { z } from "zod";
import { backupTargetInput } from "./config";
import { backupScheduleInput, databaseInput } from "./database";
import { gitSourceFields, providerApiIssues } from "./git";
import { envKey, envMap, resourceName } from "./rules";
import { imageRef, serviceCreate } from "./service";

/**
 * The spec (docs/operating/projects-environments-spec.md#config-as-code-export-diff-apply): one environment as a document. Every object is the API's own create
 * schema with its ids swapped for names (a backup target, a registry credential), so the file and the
 * API accept exactly the same values.
 */

export const SPEC_API_VERSION = "levelrail.dev/v1";
export const SPEC_KIND = "Environment";

/** An app (POST …/apps takes the same). */
export const appInput = z.object({ name: resourceName }).strict();

/** An organization-level object named from the spec: a backup target or a registry credential. */
const refName = backupTargetInput.shape.name;

const uniqueKeys = z
  .array(envKey)
  .max(1000)
  .refine((ks) => new Set(ks).size === ks.length, "must not list a secret twice");

/** A git source: the API's, its credentials by name (git credentials of the organization). */
export const specGitSource = gitSourceFields
  .omit({ credentialId: true, apiCredentialId: true })
  .extend({ credential: resourceName.nullable().default(null), apiCredential: resourceName.nullable().default(null) })
  .strict()
  .superRefine((g, c) => {
    for (const i of providerApiIssues(g)) c.addIssue({ code: "custom", path: [i.path], message: i.message });
  });
export type SpecGitSource = z.infer<typeof specGitSource>;

/** `{image}` or `{git}` (with its credential by name), as the API's `source`. */
const specSource = z
  .object({ image: imageRef.optional(), git: specGitSource.optional() })
  .strict()
  .superRefine((s, c) => {
    if ((s.image === undefined) === (s.git === undefined)) c.addIssue({ code: "custom", message: 'must be {"image": "…"} or {"git": {"url": "…", …}}, one of the two' });
  });

/**
 * A service: POST …/services' body but `environmentId`, with the storage target, registry credential
 * and git credential by name, and its secrets' names. A git-sourced service has `source.git` and no
 * `image` (its builds make it).
 */
export const specService = serviceCreate
  .omit({ environmentId: true, storageTargetId: true, registryCredentialId: true, source: true })
  .extend({
    source: specSource.optional(),
    storageTarget: refName.nullable().default(null),
    registryCredential: refName.nullable().default(null),
    /** Names only: values come from `apply --secret KEY=@env:VAR` or PUT …/secrets/{KEY}. */
    secrets: uniqueKeys.default([]),
  })
  .strict();
export type SpecService = z.infer<typeof specService>;

/** A database: POST …/databases' body, its schedule naming the backup target by name. */
export const specDatabase = databaseInput
  .omit({ backupSchedule: true })
  .extend({
    backupSchedule: backupScheduleInput.omit({ targetId: true }).extend({ target: refName }).strict().nullable().default(null),
  })
  .strict();
export type SpecDatabase = z.infer<typeof specDatabase>;

export const specBody = z
  .object({
    /** The environment tier's vars (PUT …/env). */
    vars: envMap.default({}),
    apps: z.array(appInput).max(1000).default([]),
    services: z.array(specService).max(1000).default([]),
    databases: z.array(specDatabase).max(1000).default([]),
  })
  .strict();
export type SpecBody = z.infer<typeof specBody>;

export const specMetadata = z
  .object({
    /** The project's name as the API has it (free text, like POST /api/v1/projects takes it). */
    project: z.string({ error: "must be a string" }).trim().min(1, "is required").max(100),
    environment: resourceName,
    /** What `export` saw; `apply` refuses (unless forced) when the environment changed since. */
    resourceVersion: z.string().max(200).optional(),
  })
  .strict();

export const environmentSpec = z
  .object({
    apiVersion: z.literal(SPEC_API_VERSION, { error: `must be ${SPEC_API_VERSION}` }),
    kind: z.literal(SPEC_KIND, { error: `must be ${SPEC_KIND}` }),
    metadata: specMetadata,
    spec: specBody.default({ vars: {}, apps: [], services: [], databases: [] }),
  })
  .strict();
export type EnvironmentSpec = z.infer<typeof environmentSpec>;

/** The JSON Schema of the file (served at /api/v1/spec.schema.json): what an editor validates against. */
export function specJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(environmentSpec, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return { ...schema, $id: "/api/v1/spec.schema.json", title: "Levelrail environment spec" };
}
