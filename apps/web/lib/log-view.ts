import { type Scoped, serviceApi } from "./paths";

/** One row of the Logs view: a line a container printed, or the marker of a switch to another container. */
export interface LogRow {
  seq: number;
  kind: "line" | "marker";
  container: string;
  stream: "stdout" | "stderr" | null;
  at: string;
  text: string;
}

/** How many rows the view keeps (older ones are dropped) and how many it renders at most. */
export const KEPT_ROWS = 10_000;
export const RENDERED_ROWS = 1_000;

/** The kept rows with `more` appended: at most `cap`, the newest. */
export function appendCapped(rows: LogRow[], more: LogRow[], cap = KEPT_ROWS): LogRow[] {
  if (more.length === 0) return rows;
  const all = rows.concat(more);
  return all.length > cap ? all.slice(all.length - cap) : all;
}

/** The rows to render: those matching the search (case-insensitive; markers always), the last `max`; and how many matched. */
export function visibleRows(rows: LogRow[], search: string, max = RENDERED_ROWS): { rows: LogRow[]; matched: number } {
  const needle = search.trim().toLowerCase();
  const matching = needle === "" ? rows : rows.filter((r) => r.kind === "marker" || r.text.toLowerCase().includes(needle));
  return { rows: matching.length > max ? matching.slice(matching.length - max) : matching, matched: matching.length };
}

/**
 * The followed stream's URL. After a lost connection it resumes at the last line it had
 * (`resumeAt`: the engine's time, so nothing already shown comes twice; the view drops lines at or
 * before it), otherwise it starts at `since` (or the last 500 lines).
 */
export function logStreamUrl(s: Scoped, o: { container: string; since: string; resumeAt: string | null }): string {
  const q = new URLSearchParams({ follow: "true" });
  if (o.container) q.set("container", o.container);
  if (o.resumeAt) {
    q.set("since", o.resumeAt);
    q.set("tail", "10000");
  } else if (o.since) {
    q.set("since", o.since);
    q.set("tail", "10000");
  }
  return `/api/v1${serviceApi(s, "/logs")}?${q.toString()}`;
}
