/**
 * What a backup target said, in the operator's words: the target's reason (its S3 error code or the
 * network error) and what to do about it. Never a credential, a signed URL or the target's own text:
 * messages are built here from the code, the HTTP status, the endpoint's origin, the bucket and the key.
 */
export class StorageError extends Error {
  /** The target's reason: an S3 error code (`NoSuchBucket`, `SignatureDoesNotMatch`, …), a network code (`ECONNREFUSED`), or `TimeoutError`. */
  readonly reason: string;
  /** Whether trying again later may help (the target is down, slow or failing), as opposed to a refusal that needs a fix. */
  readonly retryable: boolean;

  constructor(message: string, opts: { reason: string; retryable: boolean }) {
    super(message);
    this.name = "StorageError";
    this.reason = opts.reason;
    this.retryable = opts.retryable;
  }
}

/** Where a failed request went, for the message. */
export interface StorageErrorContext {
  /** The endpoint as the operator configured it (only its origin is shown). */
  endpoint: string;
  bucket: string;
  key?: string;
  /** Strings that must never appear in a message (the secret key). */
  redact?: string[];
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "EPIPE",
  "ECONNABORTED",
]);

/** The endpoint's origin (`http://host:port`), without any user info, path or query. */
export function endpointOrigin(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return "(an invalid endpoint)";
  }
}

const field = (err: object, name: string): unknown => (name in err ? (err as Record<string, unknown>)[name] : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** What an S3 error code looks like; anything else the remote side put there is not repeated. */
const CODE = /^[A-Za-z][A-Za-z0-9.]{0,63}$/;

/**
 * The S3 error code of a service answer and its HTTP status, or the network code of a failed
 * connection and Node's own message for it. A service answer's message is the remote side's text
 * and is dropped: it may be anything (an internal service's page, an echo of the request).
 */
function classify(err: unknown): { code: string; message: string; status?: number; network: boolean; refused?: boolean } {
  if (typeof err !== "object" || err === null) return { code: "UnknownError", message: "", network: false };
  const meta = field(err, "$metadata");
  const status = typeof meta === "object" && meta !== null ? field(meta, "httpStatusCode") : undefined;
  const message = (str(field(err, "message")) ?? "").replace(/^@smithy\/node-http-handler - /, "");
  // Node's network errors carry `code`; an AggregateError (several addresses tried) carries it too.
  const sysCode = str(field(err, "code"));
  // The installation's address policy refused the endpoint's address (checkedLookup): our own text.
  if (sysCode === "ETARGETREFUSED") return { code: "TargetRefused", message, network: false, refused: true };
  if (sysCode && NETWORK_CODES.has(sysCode)) return { code: sysCode, message, network: true };
  const name = str(field(err, "name")) ?? "Error";
  if (name === "TimeoutError") return { code: "TimeoutError", message, network: true };
  const errors = field(err, "errors");
  if (Array.isArray(errors) && errors.length > 0) {
    const inner = classify(errors[0]);
    if (inner.network || inner.refused) return inner;
  }
  const code = str(field(err, "Code")) ?? name;
  return { code: CODE.test(code) ? code : "UnknownError", message: "", status: typeof status === "number" ? status : undefined, network: false };
}

/** Maps anything the SDK (or the network under it) threw into a `StorageError` naming the target's reason and what to do. */
export function toStorageError(err: unknown, ctx: StorageErrorContext): StorageError {
  if (err instanceof StorageError) return err;
  const { code, message, status, network, refused: byPolicy } = classify(err);
  const origin = endpointOrigin(ctx.endpoint);
  const said = status !== undefined ? ` (HTTP ${status})` : "";
  const refused = (what: string) => `storage target refused the request: ${code}${said}: ${what}`;
  let text: string;
  let retryable = false;
  if (byPolicy) {
    text = `storage target ${origin} refused by the installation's address policy: ${message}`;
  } else if (network) {
    retryable = true;
    text =
      code === "TimeoutError"
        ? `storage target ${origin} did not answer in time (${message || code}): check that it is up and reachable`
        : `storage target ${origin} cannot be reached: ${message || code}: check the endpoint and that the server is up`;
  } else {
    switch (code) {
      case "NoSuchBucket":
        text = `bucket "${ctx.bucket}" does not exist on ${origin} (NoSuchBucket): create it or fix the target's bucket`;
        break;
      case "NoSuchKey":
      case "NotFound":
        text = `object "${ctx.key ?? ""}" does not exist in bucket "${ctx.bucket}" on ${origin} (${code})`;
        break;
      case "InvalidAccessKeyId":
        text = refused("check the access key");
        break;
      case "SignatureDoesNotMatch":
        text = refused("check the secret key");
        break;
      case "AccessDenied":
      case "Forbidden":
      case "AllAccessDisabled":
        text = refused(`check that the key may read and write bucket "${ctx.bucket}"`);
        break;
      case "RequestTimeTooSkewed":
        text = refused("check this host's clock");
        break;
      case "AuthorizationHeaderMalformed":
      case "InvalidRequest":
      case "InvalidArgument":
        text = refused("check the target's region and endpoint");
        break;
      default:
        retryable = status === undefined || status >= 500 || code === "SlowDown" || code === "RequestTimeout";
        text = status !== undefined && status >= 500 ? `storage target ${origin} failed: ${code}${said}: try again later` : `storage target ${origin} answered ${code}${said}`;
    }
  }
  for (const secret of ctx.redact ?? []) {
    if (secret) text = text.split(secret).join("[redacted]");
  }
  return new StorageError(text, { reason: code, retryable });
}
