/**
 * An error for the worker's log. A failed query is shown by its SQL text only: drizzle puts the
 * parameters in its message (and keeps them in `params`), and they may be a service's data.
 */
export function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const failed = err as Error & { query?: unknown; params?: unknown };
  return failed.params !== undefined && failed.query !== undefined ? `${err.name}: failed query: ${String(failed.query)}` : err.message;
}
