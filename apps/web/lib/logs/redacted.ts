import type { LogLine } from "@levelrail/docker/logs";
import { LineRedactor } from "@levelrail/spec/redact-lines";

const QUIET = Symbol("quiet");

/**
 * A container's lines with `values` redacted across line and frame boundaries (`LineRedactor`). A
 * line that could begin a value waits for the next one, or `holdMs` of quiet, whichever comes
 * first; then it is passed on as it is. It never reads further ahead of its reader than the one
 * line it waits for, so a slow reader still holds the engine's stream back.
 */
export async function* redactedLines(source: AsyncGenerator<LogLine>, values: readonly string[], holdMs: number): AsyncGenerator<LogLine> {
  const redactor = new LineRedactor<LogLine>(values);
  let pending: Promise<IteratorResult<LogLine>> | null = null;
  let done = false;
  try {
    for (;;) {
      pending ??= source.next();
      const r = redactor.holding ? await quietAfter(pending, holdMs) : await pending;
      if (r === QUIET) {
        yield* redactor.flush();
        continue;
      }
      pending = null;
      if (r.done) {
        done = true;
        yield* redactor.flush();
        return;
      }
      yield* redactor.push(r.value);
    }
  } finally {
    if (!done) {
      // Ended by its reader: the source ends too (once a read in flight is over, which an abort of its signal ends).
      if (pending) void pending.then(() => source.return(undefined), () => undefined);
      else await source.return(undefined);
    }
  }
}

function quietAfter<T>(pending: Promise<T>, ms: number): Promise<T | typeof QUIET> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const quiet = new Promise<typeof QUIET>((resolve) => (timer = setTimeout(() => resolve(QUIET), ms)));
  return Promise.race([pending, quiet]).finally(() => clearTimeout(timer));
}
