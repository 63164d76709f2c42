import { and, eq } from "drizzle-orm";
import { secret } from "@levelrail/db/schema/config";
import { LevelrailError } from "@levelrail/spec/errors";
import { envKey, envValue } from "@levelrail/spec/rules";
import { z } from "zod";
import { type Ctx, MAX_LIST_ROWS, bounded, parse } from "../context";
import { findService } from "../service/view";
import { audit } from "../audit/record";

const secretInput = z.object({ value: envValue }).strict();
const keyInput = z.object({ key: envKey }).strict();

/** Keys and update times only: secrets are write-only. */
export async function listSecrets({ ctx, envId, name }: { ctx: Ctx; envId: string; name: string }) {
  const { service: s } = await findService(ctx, envId, name, "secret.read");
  const rows = await ctx.db
    .select({ key: secret.key, updatedAt: secret.updatedAt })
    .from(secret)
    .where(and(eq(secret.serviceId, s.id), eq(secret.orgId, s.orgId)))
    .orderBy(secret.key)
    .limit(MAX_LIST_ROWS + 1);
  return bounded(rows, "secrets of this service", "delete the ones it no longer reads").map((r) => ({ key: r.key, updatedAt: r.updatedAt.toISOString() }));
}

export async function putSecret({ ctx, envId, name, key, input }: { ctx: Ctx; envId: string; name: string; key: string; input: unknown }) {
  const { service: s } = await findService(ctx, envId, name, "secret.write");
  parse(keyInput, { key });
  const { value } = parse(secretInput, input);
  const sealed = ctx.kit.keyring.seal(value);
  const now = new Date();
  await ctx.db.transaction(async (tx) => {
    await tx
      .insert(secret)
      .values({ orgId: s.orgId, serviceId: s.id, key, sealed, updatedAt: now })
      .onConflictDoUpdate({ target: [secret.serviceId, secret.key], set: { sealed, updatedAt: now } });
    // The key's name only: a secret's value never reaches the audit log.
    await audit(ctx, tx, { orgId: s.orgId, action: "secret.set", target: { type: "service", id: s.id, name: s.name }, fields: [key] });
  });
  return { key, updatedAt: now.toISOString() };
}

export async function deleteSecret({ ctx, envId, name, key }: { ctx: Ctx; envId: string; name: string; key: string }) {
  const { service: s } = await findService(ctx, envId, name, "secret.write");
  await ctx.db.transaction(async (tx) => {
    const gone = await tx
      .delete(secret)
      .where(and(eq(secret.serviceId, s.id), eq(secret.orgId, s.orgId), eq(secret.key, key)))
      .returning({ key: secret.key });
    if (gone.length === 0) throw new LevelrailError("not_found", `secret ${key} not found`);
    await audit(ctx, tx, { orgId: s.orgId, action: "secret.delete", target: { type: "service", id: s.id, name: s.name }, fields: [key] });
  });
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema this file parses its input with. */
export { secretInput as secretInput };
