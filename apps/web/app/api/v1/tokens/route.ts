import { listApiTokens } from "@levelrail/auth";
import { json, route } from "@/lib/api";

/** The caller's own API tokens: name, created, last used, expiry; never a token or its hash. */
export const GET = route(async ({ ctx }) => json(await listApiTokens(ctx.db, ctx.actor.userId)));
