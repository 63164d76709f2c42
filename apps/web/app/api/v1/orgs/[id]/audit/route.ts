import { exportAudit, listAudit } from "@levelrail/services/audit/list";
import { json, route, searchInput } from "@/lib/api";

type Params = { id: string };

const FILTERS = ["cursor", "limit", "actor", "action", "target", "since", "until"] as const;

/** Whether the caller asked for the JSON-lines export (`?format=jsonl` or `Accept: application/x-ndjson`). */
function wantsLines(req: Request): boolean {
  if (new URL(req.url).searchParams.get("format") === "jsonl") return true;
  return /application\/(x-)?ndjson|application\/jsonl/.test(req.headers.get("accept") ?? "");
}

/**
 * The organization's audit log, newest first: `{entries, nextCursor}` a page (`?cursor=`, `?limit=` up
 * to 200, `?actor=`, `?action=`, `?target=`, `?since=`, `?until=`), or every matching entry as JSON
 * lines for an export. Read-only: no route changes or deletes an entry.
 */
export const GET = route<Params>(async ({ ctx, req, params }) => {
  const input = searchInput(req, FILTERS);
  if (!wantsLines(req)) return json(await listAudit({ ctx, orgId: params.id, input }));
  const { cursor: _c, limit: _l, ...filters } = input;
  // The first page is read before answering, so a bad filter or another organization is its 400/404.
  const entries = exportAudit({ ctx, orgId: params.id, input: filters });
  const first = await entries.next();
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (!first.done) controller.enqueue(encoder.encode(`${JSON.stringify(first.value)}\n`));
      else controller.close();
    },
    async pull(controller) {
      if (first.done) return;
      const next = await entries.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`${JSON.stringify(next.value)}\n`));
    },
    async cancel() {
      await entries.return(undefined);
    },
  });
  return new Response(body, { headers: { "content-type": "application/x-ndjson; charset=utf-8", "content-disposition": `attachment; filename="audit-${params.id}.jsonl"` } });
});
