/**
 * What a service-event row says (`service_event.detail`): plain text an operator or a notification
 * reads as it is, in a layout `lastLinesOf` can take apart again.
 */

/** How many lines of the container's output a crash-loop event keeps. */
export const CRASH_LOOP_LINES = 20;
/** The longest line kept (a line beyond it is cut, marked with …). */
const MAX_LINE = 500;
const LINES_HEADER = "last lines before it died:";

export interface CrashLoopFacts {
  restarts: number;
  lastExit: { code: number | null; at: string | null } | null;
}

function summary(f: CrashLoopFacts): string {
  const restarts = `${f.restarts} restart${f.restarts === 1 ? "" : "s"}`;
  if (!f.lastExit) return restarts;
  return `${restarts}; last exit code ${f.lastExit.code ?? "?"}${f.lastExit.at ? ` at ${f.lastExit.at}` : ""}`;
}

/** Pure: the last `CRASH_LOOP_LINES` lines of `output` (already redacted), each at most 500 characters. */
export function lastLines(output: string): string[] {
  const lines = output.replace(/\r\n/g, "\n").split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.slice(-CRASH_LOOP_LINES).map((l) => (l.length > MAX_LINE ? `${l.slice(0, MAX_LINE)}…` : l));
}

/**
 * The detail of `crash_loop_started`: restarts, the last exit, then the last lines the container
 * printed (or `instead`, a note on why there are none to show).
 */
export function crashLoopStartedDetail(f: CrashLoopFacts, lines: string[], instead: string | null = null): string {
  const head = `crash loop started: ${summary(f)}`;
  if (instead !== null) return `${head}\n${instead}`;
  return lines.length ? `${head}\n${LINES_HEADER}\n${lines.join("\n")}` : `${head}\n(it printed nothing)`;
}

/** The detail of `crash_loop_ended`. */
export function crashLoopEndedDetail(f: CrashLoopFacts): string {
  return `crash loop ended: running again after ${summary(f)}`;
}

/** The lines a `crash_loop_started` detail holds (empty when it printed none). */
export function lastLinesOf(detail: string): string[] {
  const at = detail.indexOf(`\n${LINES_HEADER}\n`);
  return at < 0 ? [] : detail.slice(at + LINES_HEADER.length + 2).split("\n");
}
