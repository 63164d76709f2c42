// The response shapes of the API as zod schemas, for the OpenAPI document only (the verbs build their
// answers as TypeScript views). Each precise schema is pinned to its view type by `Same<…>` below, so
// a view that gains, loses or retypes a field fails `tsc` until its schema follows: one source of
// truth, checked. Shapes not described field by field yet are `looseObject` (any JSON object).
import { z } from "zod";
import { sourceSchema } from "./schemas-git";
import type { AppListItem, AppView } from "@levelrail/services/app/app";
import type { BackupView, DatabaseView } from "@levelrail/services/database/view";
import type { CurrentEnvironment } from "@levelrail/services/operator/preference";
import { PERMISSIONS } from "@levelrail/services/org/permissions";
import type { MyOrgView } from "@levelrail/services/org/list";
import type { EnvironmentView, ProjectView } from "@levelrail/services/project/list";
import { BACKUP_STATUSES, DATABASE_PHASES } from "@levelrail/spec/database";
import type { DomainStatusView } from "@levelrail/spec/domains";
import type { ErrorCode } from "@levelrail/spec/errors";
import { ROLES } from "@levelrail/spec/roles";
import { DEPLOY_STEPS, MAX_REPLICAS, PHASES, RELEASE_KINDS, RELEASE_OUTCOMES, type ReleaseView, STRATEGIES, type ServiceView, type StatusView, hooksSpec, resourcesSpec } from "@levelrail/spec/service";

/** True only when A and B are the same type (each assignable to the other). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Every code of `ErrorCode`, checked exhaustive by the record's type. */
const ERROR_CODES: Record<ErrorCode, true> = {
  invalid_input: true,
  unauthenticated: true,
  forbidden: true,
  not_found: true,
  conflict: true,
  quota_exceeded: true,
  gone: true,
  too_large: true,
  too_many: true,
  unavailable: true,
  internal: true,
};

const time = z.string().describe("ISO 8601 date-time");
const id = z.string().describe("UUID");

export const errorSchema = z
  .strictObject({
    error: z.strictObject({
      code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
      field: z.string().optional().describe("the input field, query parameter or path segment at fault (400s)"),
    }),
  })
  .describe("Every error: a 4xx for a caller's mistake, a 5xx for the product's own fault. Nothing is written when a request is refused.");

export const anyObject = z.looseObject({}).describe("A JSON object (its fields are not described here yet)");
export const anyList = z.array(anyObject);

export const projectSchema = z.strictObject({ id, orgId: id, name: z.string(), createdAt: time });
export const environmentSchema = z.strictObject({ id, orgId: id, projectId: id, name: z.string(), createdAt: time });

export const orgSchema = z.strictObject({
  id,
  name: z.string(),
  createdAt: time,
  role: z.enum(ROLES),
  projectId: id.nullable().describe("the one project the caller's role is limited to; null: the whole organization"),
  can: z.array(z.enum(Object.keys(PERMISSIONS) as [keyof typeof PERMISSIONS, ...(keyof typeof PERMISSIONS)[]])).describe("the actions the caller's role allows"),
});

export const appSchema = z.strictObject({ id, orgId: id, environmentId: id, name: z.string(), createdAt: time });
export const appListItemSchema = appSchema.extend({ services: z.number().int() });

const domainStatusSchema = z.strictObject({
  status: z.enum(["pending", "verified", "failed"]),
  exempt: z.boolean(),
  record: z.strictObject({ type: z.literal("TXT"), name: z.string(), value: z.string() }).nullable(),
  lastCheck: z.strictObject({ at: time, result: z.string() }).nullable(),
  verifiedAt: time.nullable(),
  routable: z.boolean(),
});

export const serviceSchema = z.strictObject({
  id,
  name: z.string(),
  app: z.string(),
  environmentId: id,
  image: z.string(),
  source: sourceSchema,
  port: z.number().int(),
  healthPath: z.string(),
  readyBudgetSeconds: z.number().int(),
  strategy: z.enum(STRATEGIES),
  env: z.record(z.string(), z.string()),
  databaseEnv: z.record(z.string(), z.strictObject({ from: z.string() })),
  storageTargetId: id.nullable(),
  registryCredentialId: id.nullable(),
  hooks: hooksSpec,
  domains: z.array(z.string()),
  resources: resourcesSpec,
  replicas: z.number().int().min(1).max(MAX_REPLICAS).describe("tasks of each release on a Docker Swarm; 1 on one engine (more is a 409 there)"),
  placement: z.record(z.string(), z.string()).describe("node label → value the service's tasks require on a swarm; {} (any node) on one engine"),
  createdAt: time,
  updatedAt: time,
});
export const serviceDetailSchema = serviceSchema.extend({ domainStatus: z.record(z.string(), domainStatusSchema).describe("each domain's ownership proof") });

export const releaseSchema = z.strictObject({
  id,
  kind: z.enum(RELEASE_KINDS),
  image: z.string(),
  imageId: z.string().nullable(),
  createdBy: z.string(),
  createdAt: time,
  finishedAt: time.nullable(),
  outcome: z.enum(RELEASE_OUTCOMES),
  message: z.string(),
  durationMs: z.number().nullable(),
  promotedFrom: z.strictObject({ environmentId: id, environment: z.string(), releaseId: id }).nullable(),
});

export const statusSchema = z.strictObject({
  phase: z.enum(PHASES),
  step: z.enum(DEPLOY_STEPS).nullable(),
  image: z.string().nullable(),
  servingImage: z.string().nullable(),
  targetImage: z.string().nullable(),
  activeContainer: z.string().nullable(),
  lastDeploy: releaseSchema.nullable(),
  message: z.string(),
  updatedAt: time.nullable(),
  ingress: z.strictObject({ domains: z.array(z.string()), live: z.boolean(), message: z.string() }).nullable(),
  crashLooping: z.boolean(),
  restarts: z.number().int(),
  lastExit: z.strictObject({ code: z.number().int().nullable(), at: time.nullable() }).nullable(),
  lastLines: z.array(z.string()).nullable(),
  replicas: z
    .array(z.strictObject({ name: z.string(), node: z.string(), address: z.string() }))
    .describe("on a swarm, the active release's tasks and the nodes they run on; [] on one engine"),
});

export const tierEnvSchema = z.strictObject({ vars: z.record(z.string(), z.string()) });
export const secretSchema = z.strictObject({ key: z.string(), updatedAt: time }).describe("a write-only secret: its key and when it changed, never its value");
export const currentEnvironmentSchema = z.strictObject({ project: projectSchema, environment: environmentSchema, chosen: z.boolean() });

const backupScheduleSchema = z.strictObject({ cron: z.string(), targetId: id, keep: z.number().int() });
export const databaseSchema = z.strictObject({
  id,
  name: z.string(),
  environmentId: id,
  engine: z.string(),
  version: z.string(),
  image: z.string(),
  phase: z.enum(DATABASE_PHASES),
  message: z.string(),
  backupSchedule: backupScheduleSchema.nullable(),
  nextBackupAt: time.nullable().describe("when the backup schedule fires next (UTC); null without a schedule"),
  createdAt: time,
  connection: z.strictObject({ host: z.string(), port: z.number().int(), user: z.string(), database: z.string() }).describe("never the password"),
  volume: z.string(),
  placement: z.record(z.string(), z.string()).describe("node label → value its server's node must carry on a swarm (fixed once made); {}: the manager's engine"),
});
export const databaseDetailSchema = databaseSchema.extend({
  attachedBy: z.array(z.strictObject({ service: z.string(), app: z.string(), key: z.string() })),
  previousVolumes: z.array(z.strictObject({ name: z.string(), retiredAt: time, removing: z.boolean() })),
  restores: anyList,
});
export const backupSchema = z.looseObject({
  id,
  databaseId: id,
  status: z.enum(BACKUP_STATUSES),
  message: z.string(),
  startedAt: time.nullable(),
  finishedAt: time.nullable(),
  sizeBytes: z.number().nullable(),
  sha256: z.string().nullable(),
  objectKey: z.string().nullable(),
  targetId: id.nullable(),
  createdAt: time,
});

export const storageEnvKeysSchema = z.array(z.string());

/** The document itself, described loosely: it is the OpenAPI 3.1 meta-schema's to describe. */
export const openApiSchema = z.looseObject({ openapi: z.string(), info: anyObject, paths: anyObject });

// The checks that keep each schema equal to the view it describes (a mismatch is a type error here).
const checks: [
  Same<z.output<typeof projectSchema>, ProjectView>,
  Same<z.output<typeof environmentSchema>, EnvironmentView>,
  Same<z.output<typeof orgSchema>, MyOrgView>,
  Same<z.output<typeof appSchema>, AppView>,
  Same<z.output<typeof appListItemSchema>, AppListItem>,
  Same<z.output<typeof domainStatusSchema>, DomainStatusView>,
  Same<z.output<typeof serviceSchema>, ServiceView>,
  Same<z.output<typeof releaseSchema>, ReleaseView>,
  Same<z.output<typeof statusSchema>, StatusView>,
  Same<z.output<typeof currentEnvironmentSchema>, CurrentEnvironment>,
  Same<Omit<z.output<typeof databaseSchema>, "backupSchedule">, Omit<DatabaseView, "backupSchedule">>,
  Same<Pick<z.output<typeof backupSchema>, "id" | "status" | "sizeBytes">, Pick<BackupView, "id" | "status" | "sizeBytes">>,
] = [true, true, true, true, true, true, true, true, true, true, true, true];
void checks;
