import { z } from "zod";
import type { QuotaKind } from "./lists";

export { QUOTA_KINDS, type QuotaKind } from "./lists";

/**
 * Per-organization quotas (docs/operating/configuration.md, docs/operating/quotas.md): what one organization may have at most, so one tenant
 * cannot use up what the installation shares (e.g. the /26 subnets of LEVELRAIL_NETWORK_POOL, one
 * per app, or the notification dispatcher's time: `channels`, its webhook and email channels). Each has an installation-wide default (`LEVELRAIL_QUOTA_<KIND>`) that the
 * administrator can override per organization (`levelrail quota set`).
 * The kinds are in ./lists.
 */

/** A limit for each kind. */
export type QuotaLimits = Record<QuotaKind, number>;

/** The installation defaults when no LEVELRAIL_QUOTA_* variable is set. */
export const DEFAULT_QUOTAS: QuotaLimits = { apps: 50, services: 200, databases: 20, domains: 200, channels: 20 };

/** The largest limit one can set (a typo of a few digits must not read as "unlimited" by accident). */
export const MAX_QUOTA = 1_000_000;

/** One limit: a whole number from 0 (nothing may be created) to MAX_QUOTA. */
export const quotaLimit = z.coerce
  .number({ error: "must be a whole number" })
  .int("must be a whole number")
  .min(0, "must be 0 or more")
  .max(MAX_QUOTA, `must be at most ${MAX_QUOTA}`);
