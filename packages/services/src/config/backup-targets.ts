import { and, eq, inArray } from "drizzle-orm";
import { backupTarget } from "@levelrail/db/schema/config";
import { managedDatabase } from "@levelrail/db/schema/databases";
import { service } from "@levelrail/db/schema/services";
import { backupTargetInput } from "@levelrail/spec/config";
import { invalid } from "@levelrail/spec/errors";
import { scope, targetPolicy } from "../context";
import { policyProblem } from "../notifications/address";
import { sealedCredentialVerbs } from "./sealed-credentials";

/** S3-compatible storage of an organization; its secret key is write-only. */
const verbs = sealedCredentialVerbs({
  noun: "backup target",
  plural: "backup targets",
  table: backupTarget,
  columns: { id: backupTarget.id, orgId: backupTarget.orgId, name: backupTarget.name },
  input: backupTargetInput,
  values: ({ secretKey, ...fields }, seal) => ({ ...fields, secretKeySealed: seal(secretKey) }),
  view: (t) => ({
    id: t.id,
    /** The organization it belongs to: only its databases and services may use it. */
    orgId: t.orgId,
    name: t.name,
    endpoint: t.endpoint,
    bucket: t.bucket,
    region: t.region,
    accessKey: t.accessKey,
    secretKeySet: true,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  }),
  /**
   * The worker connects to the endpoint for every backup and restore: it must be a public address
   * unless the installation allows private targets (its name is checked again, resolved, at every
   * connection). A service the target is attached to gets it as env and connects by itself.
   */
  check(ctx, input) {
    const problem = policyProblem(new URL(input.endpoint).hostname, targetPolicy(ctx));
    if (problem) throw invalid("endpoint", `endpoint: ${problem}`);
  },
  async inUse(tx, ctx, id) {
    const users = await tx.select({ name: service.name }).from(service).where(and(eq(service.storageTargetId, id), inArray(service.orgId, scope(ctx))));
    if (users.length) return `backup target is attached to ${users.map((u) => u.name).join(", ")}; detach it first`;
    const schedules = await tx
      .select({ name: managedDatabase.name })
      .from(managedDatabase)
      .where(and(eq(managedDatabase.scheduleTargetId, id), inArray(managedDatabase.orgId, scope(ctx))));
    if (schedules.length) return `backup target is used by the backup schedule of database ${schedules.map((d) => d.name).join(", ")}; change that schedule first`;
    return null;
  },
});

export const listBackupTargets = verbs.list;
export const createBackupTarget = verbs.create;
export const deleteBackupTarget = verbs.remove;
