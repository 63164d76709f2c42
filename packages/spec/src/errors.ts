/**
 * One error type for the whole product. Each boundary (HTTP, UI, worker
 * requeue) maps `code` with an exhaustive switch.
 */
export type ErrorCode =
  | "invalid_input"
  | "unauthenticated"
  /** Signed in, but not allowed: a member whose role does not allow it (a 403 saying which role would), or an organization that requires a second factor the caller has not enrolled. */
  | "forbidden"
  | "not_found"
  | "conflict"
  /** An organization's quota (apps, services, databases, domains) would be exceeded: a 409 naming it and its value. */
  | "quota_exceeded"
  /** A route that moved for good (the flat routes before environments): the message names the new path. */
  | "gone"
  /** A request body over the cap. */
  | "too_large"
  /** Too many at once (live log streams): a 429 with `Retry-After` (`retryAfterSeconds`). */
  | "too_many"
  | "unavailable"
  | "internal";

export class LevelrailError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly retryable: boolean;
  /** When to ask again (a 429's `Retry-After`). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { field?: string; retryable?: boolean; cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = "LevelrailError";
    this.code = code;
    this.field = opts.field;
    this.retryable = opts.retryable ?? (code === "unavailable");
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

export const invalid = (field: string, message: string) =>
  new LevelrailError("invalid_input", message, { field });
export const notFound = (what: string) => new LevelrailError("not_found", `${what} not found`);
export const conflict = (message: string, field?: string) =>
  new LevelrailError("conflict", message, field === undefined ? {} : { field });

export function httpStatus(code: ErrorCode): number {
  switch (code) {
    case "invalid_input":
      return 400;
    case "unauthenticated":
      return 401;
    case "forbidden":
      return 403;
    case "not_found":
      return 404;
    case "conflict":
    case "quota_exceeded":
      return 409;
    case "gone":
      return 410;
    case "too_large":
      return 413;
    case "too_many":
      return 429;
    case "unavailable":
      return 503;
    case "internal":
      return 500;
  }
}

/** The JSON body of an error response (docs/api.md#errors). */
export function errorBody(err: LevelrailError): { error: { code: string; message: string; field?: string } } {
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(err.field === undefined ? {} : { field: err.field }),
    },
  };
}

/** The headers of an error response: `Retry-After` when the error says when to ask again. */
export function errorHeaders(err: LevelrailError): Record<string, string> {
  return err.retryAfterSeconds === undefined ? {} : { "retry-after": String(Math.max(1, Math.ceil(err.retryAfterSeconds))) };
}
