import type { Db } from "@levelrail/db/client";
import type { QuotaLimits } from "@levelrail/spec/quotas";
import type { Ctx } from "../context";
import type { SecretsKit } from "../env/sources";

/** What the worker's preview controller hands the preview verbs. */
export interface PreviewDeps {
  db: Db;
  kit: SecretsKit;
  /** `LEVELRAIL_BASE_DOMAINS`: preview routes live under them and need no proof. */
  baseDomains: string[];
  shortName?: string;
  panelHost?: string | undefined;
  quotas?: QuotaLimits;
  /** This worker's id, named by the audit entries of what it does. */
  runner: string;
}

/**
 * The context the worker acts in for one organization's previews: the organization's own verbs
 * (clone, patch, deploy, delete an environment) with every quota and domain rule they enforce, as
 * the worker (`previews` in the audit log), never as a user.
 */
export function previewCtx(d: PreviewDeps, orgId: string): Ctx {
  return {
    db: d.db,
    kit: d.kit,
    actor: { userId: `worker:${d.runner}`, email: "previews (worker)", orgIds: [orgId], memberships: [{ orgId, projectId: null, role: "owner" }] },
    baseDomains: d.baseDomains,
    ...(d.shortName ? { shortName: d.shortName } : {}),
    ...(d.panelHost ? { panelHost: d.panelHost } : {}),
    ...(d.quotas ? { quotas: d.quotas } : {}),
    audit: { actor: { type: "worker", id: d.runner, name: "previews" }, ip: null },
  };
}
