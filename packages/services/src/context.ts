import type { ZodType } from "zod";
import type { Actor } from "@levelrail/auth";
import type { Db } from "@levelrail/db/client";
import { LevelrailError } from "@levelrail/spec/errors";

/** Every verb gets the database and who is asking. */
export interface Ctx {
  db: Db;
  actor: Actor;
}

/** zod parse that throws a 400 naming the first wrong field. */
export function parse<T>(schema: ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = issue?.path.map(String).join(".") || undefined;
  let message = issue?.message ?? "invalid input";
  if (issue?.code === "unrecognized_keys") message = `unknown field ${issue.keys.join(", ")}`;
  if (issue?.code === "invalid_type" && issue.input === undefined) message = "is required";
  const fieldName = issue?.code === "unrecognized_keys" ? (issue.keys[0] ?? field) : field;
  return fail(fieldName, fieldName ? `${fieldName}: ${message}` : message);
}

function fail(field: string | undefined, message: string): never {
  throw new LevelrailError("invalid_input", message, field === undefined ? {} : { field });
}

/** The caller's organization to act in: the one named, or their first. */
export function orgOf(ctx: Ctx, orgId: string | undefined): string {
  if (orgId !== undefined) {
    if (!ctx.actor.orgIds.includes(orgId)) throw new LevelrailError("not_found", "organization not found", { field: "orgId" });
    return orgId;
  }
  const first = ctx.actor.orgIds[0];
  if (!first) throw new LevelrailError("not_found", "you belong to no organization; ask an owner to add you", { field: "orgId" });
  return first;
}

/** Map a unique-constraint violation to a 409 naming the field. */
export async function uniquely<T>(field: string, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const code = (err as { code?: string; cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
    if (code === "23505") throw new LevelrailError("conflict", `${what} exists already`, { field });
    throw err;
  }
}

const NO_ORG = "00000000-0000-0000-0000-000000000000";
/** The caller's organization ids for a `WHERE org_id IN (...)`; never empty. */
export const scope = (ctx: Ctx): string[] => (ctx.actor.orgIds.length ? ctx.actor.orgIds : [NO_ORG]);
