import { LevelrailError } from "@levelrail/spec/errors";

/** Thrown by a controller when retrying cannot help; the runner records it and stops. */
export class TerminalError extends Error {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = "TerminalError";
  }
}

/** An error the runner records and does not retry. */
export type FinalError = TerminalError | LevelrailError;

/**
 * The worker's one mapping of a thrown error to a retry policy: a `TerminalError`, or a
 * product error (`LevelrailError`) that says it is not retryable, is final; anything else
 * (a lost connection, an engine error, a bug) is retried with backoff.
 */
export function isFinal(error: unknown): error is FinalError {
  if (error instanceof TerminalError) return true;
  if (error instanceof LevelrailError) return !error.retryable;
  return false;
}
