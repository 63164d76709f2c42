// More response shapes (see schemas.ts): the caller's tokens and sessions, a service's effective
// environment and drift, quotas, hook runs. Each pinned to its view type the same way.
import { z } from "zod";
import type { SessionView } from "@levelrail/auth/account";
import type { TokenView } from "@levelrail/auth";
import { HOOK_OUTCOMES, HOOK_PHASES } from "@levelrail/db/schema/hooks";
import type { ConfigDrift, EffectiveEnvEntry } from "@levelrail/services/env/effective";
import type { getHookRun, listHookRuns } from "@levelrail/services/hooks/list";
import type { QuotasView } from "@levelrail/services/org/quota";
import type { listServices, listServicesPage } from "@levelrail/services/service/view";
import { PHASES } from "@levelrail/spec/service";
import { serviceSchema } from "./schemas";
import { ENV_SOURCES } from "@levelrail/spec/env";
import { QUOTA_KINDS } from "@levelrail/spec/quotas";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const time = z.string().describe("ISO 8601 date-time");
const id = z.string().describe("UUID");

export const tokenSchema = z
  .strictObject({ id, name: z.string(), createdAt: time, lastUsedAt: time.nullable(), expiresAt: time.nullable(), expired: z.boolean(), readOnly: z.boolean() })
  .describe("an API token: never the token itself");

export const sessionSchema = z.strictObject({
  id: z.string(),
  userAgent: z.string().nullable(),
  ipAddress: z.string().nullable(),
  createdAt: time,
  lastActiveAt: time,
  expiresAt: time,
  current: z.boolean().describe("the session of the request that asked"),
});

export const effectiveEnvEntrySchema = z.strictObject({
  key: z.string(),
  source: z.enum(ENV_SOURCES),
  value: z.string().nullable().describe("null for secrets and credentials: never shown"),
  overrides: z.array(z.enum(ENV_SOURCES)),
});

export const driftSchema = z.strictObject({
  deployed: z.boolean(),
  changedKeys: z.array(z.string()).describe("env keys whose value differs from the current release (names only)"),
  changedFields: z.array(z.string()),
  problem: z.string().nullable(),
});

const quotaSchema = z.strictObject({ limit: z.number().int(), used: z.number().int(), source: z.enum(["default", "organization"]) });
export const quotasSchema = z.strictObject({ quotas: z.strictObject(Object.fromEntries(QUOTA_KINDS.map((k) => [k, quotaSchema])) as Record<(typeof QUOTA_KINDS)[number], typeof quotaSchema>) });

const hookRunSummarySchema = z.strictObject({
  id,
  service: z.string(),
  releaseId: id,
  phase: z.enum(HOOK_PHASES),
  command: z.array(z.string()),
  startedAt: time,
  finishedAt: time.nullable(),
  durationMs: z.number().nullable(),
  exitCode: z.number().int().nullable(),
  outcome: z.enum(HOOK_OUTCOMES),
  message: z.string(),
});
export const hookRunPageSchema = z.strictObject({ runs: z.array(hookRunSummarySchema), nextBefore: time.nullable().describe("pass as `before` for the next page") });
export const hookRunDetailSchema = hookRunSummarySchema.extend({ environmentId: id, output: z.string() });

/** A service in a fleet list: its config, where it lives and what the worker last saw. */
export const serviceItemSchema = serviceSchema.extend({
  environment: z.string(),
  projectId: id,
  project: z.string(),
  phase: z.enum(PHASES),
  activeContainer: z.string().nullable(),
  message: z.string(),
  crashLooping: z.boolean(),
  restarts: z.number().int(),
});
export const servicePageSchema = z.strictObject({
  services: z.array(serviceItemSchema),
  nextCursor: id.nullable().describe("pass as `cursor` for the next page"),
  total: z.number().int(),
});
/** Without `limit` or `cursor`: the whole list; with either: one page. */
export const serviceListSchema = z.union([z.array(serviceItemSchema), servicePageSchema]);

const checks: [
  Same<z.output<typeof tokenSchema>, TokenView>,
  Same<z.output<typeof sessionSchema>, SessionView>,
  Same<z.output<typeof effectiveEnvEntrySchema>, EffectiveEnvEntry>,
  Same<z.output<typeof driftSchema>, ConfigDrift>,
  Same<z.output<typeof quotasSchema>, QuotasView>,
  Same<z.output<typeof hookRunPageSchema>, Awaited<ReturnType<typeof listHookRuns>>>,
  Same<z.output<typeof hookRunDetailSchema>, Awaited<ReturnType<typeof getHookRun>>>,
  Same<z.output<typeof serviceItemSchema>, Awaited<ReturnType<typeof listServices>>[number]>,
  Same<z.output<typeof servicePageSchema>, Awaited<ReturnType<typeof listServicesPage>>>,
] = [true, true, true, true, true, true, true, true, true];
void checks;
