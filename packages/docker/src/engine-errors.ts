/** The HTTP status the engine answered a failed call with, if it answered. */
export const statusOf = (err: unknown): number | undefined =>
  typeof err === "object" && err !== null && "statusCode" in err && typeof err.statusCode === "number"
    ? err.statusCode
    : undefined;

/** The engine's own message for a failed call (its JSON body's), else the error's. */
export const engineMessage = (err: unknown): string => {
  const json = typeof err === "object" && err !== null && "json" in err ? (err as { json?: { message?: unknown } }).json : undefined;
  if (typeof json?.message === "string") return json.message;
  return err instanceof Error ? err.message : String(err);
};
