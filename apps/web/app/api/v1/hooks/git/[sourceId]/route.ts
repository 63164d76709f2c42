import { isConnectionError } from "@levelrail/db/client";
import { MAX_HOOK_BYTES, receiveGitHook } from "@levelrail/services/git-hook/receive";
import { LevelrailError, errorBody, errorHeaders, httpStatus } from "@levelrail/spec/errors";
import { readCapped } from "@/lib/request-body";
import { server } from "@/lib/server";

const fail = (err: LevelrailError) => Response.json(errorBody(err), { status: httpStatus(err.code), headers: errorHeaders(err) });

/**
 * Push and pull-request webhooks of a git source (docs/operating/git-builds-and-previews.md#the-webhook-what-to-paste-into-the-forge). Public: no session or token; the
 * source's webhook secret authenticates each delivery (GitHub's and Gitea's HMAC of the raw body,
 * GitLab's token). The raw body is read capped at 1 MiB (413 beyond). Nothing of the request is
 * logged: its body and headers carry the signature.
 */
export async function POST(req: Request, { params }: { params: Promise<{ sourceId: string }> }): Promise<Response> {
  try {
    const { sourceId } = await params;
    const { db, kit } = server();
    const body = await readCapped(req, MAX_HOOK_BYTES);
    const answer = await receiveGitHook({ db, kit }, { sourceId, headers: req.headers, body });
    return Response.json(answer.body, { status: answer.status });
  } catch (err) {
    if (err instanceof LevelrailError) return fail(err);
    if (isConnectionError(err)) return fail(new LevelrailError("unavailable", "the panel's database is not reachable right now; the provider will redeliver"));
    console.error(`[api] POST /api/v1/hooks/git failed: ${err instanceof Error ? err.name : typeof err}`);
    return fail(new LevelrailError("internal", "internal error; the server log has the details"));
  }
}
