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

/**
 * The engine could not start a process in a running container because the container itself is
 * broken: after an engine restart its filesystem or namespaces may be gone (moby#43402), and every
 * exec then fails with `starting setns process … fork/exec /proc/self/exe: no such file or
 * directory` while the container's own processes run on. Only a new container helps. Returns a
 * short reason for such exec output (text the engine writes when no process started), else null.
 */
export function unusableContainerReason(output: string): string | null {
  if (!/OCI runtime exec failed/.test(output)) return null;
  if (/starting setns process|fork\/exec \/proc\/self\/exe: no such file or directory/.test(output)) {
    return "the engine can no longer start processes in the container (its filesystem is gone after an engine restart)";
  }
  return null;
}

/** An exec the engine could not start because the container is broken (see `unusableContainerReason`). */
export class UnusableContainerError extends Error {
  override readonly name = "UnusableContainerError";
}
