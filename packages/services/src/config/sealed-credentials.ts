import { and, eq, inArray } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { ZodType } from "zod";
import type { Db } from "@levelrail/db/client";
import { LevelrailError } from "@levelrail/spec/errors";
import { type Ctx, MAX_LIST_ROWS, bounded, isUuid, orgOf, orgWideScope, parse, uniquely } from "../context";
import { audit, fieldNames } from "../audit/record";
import { type Action, authorize } from "../org/permissions";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/**
 * What makes an organization's sealed credential (a backup target, a registry login): its table, the
 * columns every such table has, its input schema, how its one secret is sealed into the row, the view
 * that never shows it, and what may still use it.
 */
export interface SealedCredentialKind<T extends PgTable, Input extends { orgId?: string | undefined }, View> {
  /** In the operator's words: "backup target". */
  noun: string;
  plural: string;
  /** The action that creates or deletes one (`org/permissions.ts`); listing needs only a membership of the whole organization. */
  write: Action;
  table: T;
  columns: { id: PgColumn; orgId: PgColumn; name: PgColumn };
  input: ZodType<Input>;
  /** The row's values (but its organization) with the secret sealed; the plain secret goes no further. */
  values(input: Omit<Input, "orgId">, seal: (plain: string) => string): Omit<T["$inferInsert"], "orgId">;
  view(row: T["$inferSelect"]): View;
  /** Why it cannot be deleted (a 409's message), or null; read in the delete's transaction. */
  inUse(tx: Tx, ctx: Ctx, id: string): Promise<string | null>;
  /** Checks of the parsed input that need the installation's settings: throws a 400 naming the field. */
  check?(ctx: Ctx, input: Omit<Input, "orgId">): void;
}

/**
 * The three verbs of a sealed credential: list (at most MAX_LIST_ROWS, the secret never shown),
 * create (the secret sealed with the installation's keyring) and delete (refused while something
 * uses it), each scoped to the caller's organizations.
 */
export function sealedCredentialVerbs<T extends PgTable, Input extends { orgId?: string | undefined }, View>(k: SealedCredentialKind<T, Input, View>) {
  const rows = (r: unknown) => r as T["$inferSelect"][];
  // `backup target` → `backup-target.create`; the secret's field is named, its value never.
  const type = k.noun.replace(/ /g, "-");
  const named = (r: unknown) => r as { id: string; name: string };
  return {
    /** `orgId`: one organization's only (404 unless the caller holds a role in all of it). */
    async list({ ctx, orgId }: { ctx: Ctx; orgId?: string }): Promise<View[]> {
      if (orgId !== undefined && !orgWideScope(ctx).includes(orgId)) throw new LevelrailError("not_found", "organization not found", { field: "orgId" });
      const found = rows(
        await ctx.db
          .select()
          .from(k.table as PgTable)
          .where(and(inArray(k.columns.orgId, orgWideScope(ctx)), orgId === undefined ? undefined : eq(k.columns.orgId, orgId)))
          .orderBy(k.columns.name)
          .limit(MAX_LIST_ROWS + 1),
      );
      return bounded(found, k.plural, "delete the ones you no longer use").map(k.view);
    },
    async create({ ctx, input: raw }: { ctx: Ctx; input: unknown }): Promise<View> {
      const { orgId, ...rest } = parse(k.input, raw);
      k.check?.(ctx, rest);
      const org = orgOf(ctx, orgId);
      authorize(ctx, k.write, { orgId: org });
      const values = { ...k.values(rest, (plain) => ctx.kit.keyring.seal(plain)), orgId: org } as T["$inferInsert"];
      // A name unique per organization (where the table says so) is a 409 naming it, not a 500.
      return uniquely("name", `${k.noun} ${String((rest as { name?: unknown }).name ?? "")}`, () =>
        ctx.db.transaction(async (tx) => {
          const [row] = rows(await tx.insert(k.table).values(values).returning());
          const { id, name } = named(row);
          await audit(ctx, tx, { orgId: org, action: `${type}.create`, target: { type, id, name }, fields: fieldNames(rest) });
          return k.view(row!);
        }),
      );
    },
    /** `orgId`: the organization the path names; one of another answers 404. */
    async remove({ ctx, id, orgId }: { ctx: Ctx; id: string; orgId?: string }): Promise<void> {
      // With the organization in the path: its membership and role first (403 naming the role), like create.
      if (orgId !== undefined) authorize(ctx, k.write, { orgId });
      if (!isUuid(id)) throw new LevelrailError("not_found", `${k.noun} not found`);
      const [owner] = await ctx.db
        .select({ orgId: k.columns.orgId })
        .from(k.table as PgTable)
        .where(and(eq(k.columns.id, id), inArray(k.columns.orgId, orgWideScope(ctx)), orgId === undefined ? undefined : eq(k.columns.orgId, orgId)));
      if (!owner) throw new LevelrailError("not_found", `${k.noun} not found`);
      authorize(ctx, k.write, { orgId: String(owner.orgId) }, new LevelrailError("not_found", `${k.noun} not found`));
      await ctx.db.transaction(async (tx) => {
        const why = await k.inUse(tx, ctx, id);
        if (why) throw new LevelrailError("conflict", why);
        const gone = await tx
          .delete(k.table)
          .where(and(eq(k.columns.id, id), inArray(k.columns.orgId, orgWideScope(ctx))))
          .returning({ orgId: k.columns.orgId, name: k.columns.name });
        const [row] = gone as { orgId: string; name: string }[];
        if (!row) throw new LevelrailError("not_found", `${k.noun} not found`);
        await audit(ctx, tx, { orgId: row.orgId, action: `${type}.delete`, target: { type, id, name: row.name } });
      });
    },
  };
}
