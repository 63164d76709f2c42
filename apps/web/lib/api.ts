import "server-only";
import type { Actor } from "@levelrail/auth";
import { isConnectionError } from "@levelrail/db/client";
import type { Ctx } from "@levelrail/services/context";
import { refuseReadOnly } from "@levelrail/services/org/permissions";
import { LevelrailError, errorBody, errorHeaders, httpStatus } from "@levelrail/spec/errors";
import { actorFromRequest } from "./actor";
import { auditSourceOf } from "./audit-source";
import { parseJsonBody, readCapped, refuseNul } from "./request-body";
import { nodesReader } from "./nodes";
import { server } from "./server";

/** What one API call hands its verb. */
export interface Call<P> {
  ctx: Ctx;
  req: Request;
  params: P;
  /** The request body as JSON; an empty body is `undefined`, malformed JSON a 400 naming `body`. */
  body: () => Promise<unknown>;
  /** The request body as UTF-8 text (a YAML document, say); empty when there is none. */
  text: () => Promise<string>;
}

type Handler<P> = (req: Request, route: { params: Promise<P> }) => Promise<Response>;

export const json = (data: unknown, status = 200) => Response.json(data, { status });
export const created = (data: unknown) => json(data, 201);
export const accepted = (data: unknown) => json(data, 202);
export const noContent = () => new Response(null, { status: 204 });

/**
 * The named query parameters of a request as a verb's input; absent and
 * empty ones are left out (so the verb's defaults apply), others ignored.
 */
export function searchInput(req: Request, names: readonly string[]): Record<string, string> {
  const params = new URL(req.url).searchParams;
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = params.get(name);
    if (value !== null && value !== "") out[name] = value;
  }
  return out;
}

const fail = (err: LevelrailError) => Response.json(errorBody(err), { status: httpStatus(err.code), headers: errorHeaders(err) });

/**
 * The one wrapper of every /api/v1 handler: resolve the caller (401 without
 * one), run the verb, map a LevelrailError to its status and body, and turn
 * anything else into a generic 500. Only the method, path and error are
 * logged, never a request body: bodies carry secrets.
 */
export function route<P = Record<string, never>>(run: (call: Call<P>) => Promise<Response>): Handler<P> {
  return async (req, { params }) => {
    try {
      const actor = await actorFromRequest(req);
      if (!actor) throw new LevelrailError("unauthenticated", "sign in or send Authorization: Bearer <token>");
      refuseReadOnlyChange(req, actor);
      const { db, kit, publicUrl, quotas, shortName, allowPrivateTargets, baseDomains } = server();
      const p = await params;
      // Path segments and query values reach queries too: a NUL byte in any is a 400, not a failed query.
      refuseNul(p);
      refuseNul(Object.fromEntries(new URL(req.url).searchParams));
      // Every body is read (capped) before the verb runs, so an oversized one is a 413 on every route
      // and nothing is written, whether or not the verb looks at it.
      const bytes = await readCapped(req);
      const audit = auditSourceOf(actor, req.headers);
      return await run({ ctx: { db, actor, kit, panelHost: new URL(publicUrl).hostname, quotas, shortName, allowPrivateTargets, baseDomains, audit, engine: nodesReader() }, req, params: p, body: async () => parseJsonBody(bytes), text: async () => bodyText(bytes) });
    } catch (err) {
      if (err instanceof LevelrailError) {
        if (err.code === "internal" || err.code === "unavailable") logError(req, err);
        return fail(err);
      }
      if (isConnectionError(err)) {
        console.error(`[api] ${req.method} ${new URL(req.url).pathname}: the database is not reachable (${describe(err, 3).split("\n")[0]})`);
        return fail(new LevelrailError("unavailable", "the panel's database is not reachable right now; your apps keep serving; try again in a moment"));
      }
      logError(req, err);
      return fail(new LevelrailError("internal", "internal error; the server log has the details"));
    }
  };
}

/** The body as text: a NUL byte in it is a 400 naming `body` (PostgreSQL cannot store one). */
function bodyText(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes);
  refuseNul(text, ["body"]);
  return text;
}

/** Methods that read: everything else changes something, and a read-only API token may not. */
const READS = new Set(["GET", "HEAD", "OPTIONS"]);
/** The one POST that changes nothing: the spec's dry run (`levelrail diff`), a read of what apply would do. */
const DRY_RUN = /^\/api\/v1\/environments\/[^/]+\/apply$/;

/**
 * A read-only API token changes nothing: every route but a read answers it 403 saying why, before the
 * verb runs, whatever the verb would check (the caller's own sessions, memberships and tokens too).
 */
function refuseReadOnlyChange(req: Request, actor: Actor) {
  if (READS.has(req.method)) return;
  const url = new URL(req.url);
  if (req.method === "POST" && DRY_RUN.test(url.pathname) && url.searchParams.get("dryRun") === "true") return;
  refuseReadOnly(actor, `${req.method} ${url.pathname}`);
}

/*
 * An organization that requires single sign-on or a second factor this session lacks is left out of
 * the actor's organizations: a route acting in it answers 403 saying how to sign in for it
 * (packages/services' `orgOf` and `authorize`), every other route works, the account and sessions
 * routes included. Nothing is refused here for it: one organization's requirement never locks its
 * member out of another organization.
 */

function logError(req: Request, err: unknown) {
  console.error(`[api] ${req.method} ${new URL(req.url).pathname} failed: ${describe(err, 0)}`);
}

/**
 * An error for the log: name, message and stack frames, following `cause`.
 * A failed query is shown by its SQL text only: its parameters are request
 * data and may be secrets.
 */
function describe(err: unknown, depth: number): string {
  if (!(err instanceof Error)) return `non-Error thrown (${typeof err})`;
  // drizzle's DrizzleQueryError puts the parameters in its message; it also keeps them in `params`.
  const query = (err as { query?: unknown; params?: unknown }).params !== undefined ? (err as { query?: unknown }).query : undefined;
  const head = query !== undefined ? `${err.name}: failed query: ${String(query)}` : `${err.name}: ${err.message}`;
  const code = (err as { code?: unknown }).code;
  const frames = (err.stack ?? "")
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 10)
    .join("\n");
  const cause = err.cause !== undefined && depth < 3 ? `\n  caused by ${describe(err.cause, depth + 1)}` : "";
  return `${head}${typeof code === "string" ? ` [${code}]` : ""}${frames ? `\n${frames}` : ""}${cause}`;
}
