import { and, eq, inArray } from "drizzle-orm";
import { registryCredential } from "@levelrail/db/schema/config";
import { service } from "@levelrail/db/schema/services";
import { registryCredentialInput } from "@levelrail/spec/config";
import { LevelrailError } from "@levelrail/spec/errors";
import { type Ctx, MAX_LIST_ROWS, bounded, isUuid, orgOf, parse, scope } from "../context";

type Row = typeof registryCredential.$inferSelect;
/** Never the password: it is write-only. */
const view = (c: Row) => ({
  id: c.id,
  name: c.name,
  server: c.server,
  username: c.username,
  passwordSet: true,
  createdAt: c.createdAt.toISOString(),
  updatedAt: c.updatedAt.toISOString(),
});

export async function listRegistryCredentials({ ctx }: { ctx: Ctx }) {
  const rows = await ctx.db.select().from(registryCredential).where(inArray(registryCredential.orgId, scope(ctx))).orderBy(registryCredential.name).limit(MAX_LIST_ROWS + 1);
  return bounded(rows, "registry credentials", "delete the ones you no longer use").map(view);
}

export async function createRegistryCredential({ ctx, input: raw }: { ctx: Ctx; input: unknown }) {
  const { password, orgId, ...fields } = parse(registryCredentialInput, raw);
  const [row] = await ctx.db
    .insert(registryCredential)
    .values({ ...fields, orgId: orgOf(ctx, orgId), passwordSealed: ctx.kit.keyring.seal(password) })
    .returning();
  return view(row!);
}

export async function deleteRegistryCredential({ ctx, id }: { ctx: Ctx; id: string }) {
  if (!isUuid(id)) throw new LevelrailError("not_found", "registry credential not found");
  await ctx.db.transaction(async (tx) => {
    const users = await tx.select({ name: service.name }).from(service).where(and(eq(service.registryCredentialId, id), inArray(service.orgId, scope(ctx))));
    if (users.length) throw new LevelrailError("conflict", `registry credential is used by ${users.map((u) => u.name).join(", ")}; change those services first`);
    const gone = await tx.delete(registryCredential).where(and(eq(registryCredential.id, id), inArray(registryCredential.orgId, scope(ctx)))).returning({ id: registryCredential.id });
    if (!gone.length) throw new LevelrailError("not_found", "registry credential not found");
  });
}
