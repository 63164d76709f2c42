import { NoSuchBucket, NoSuchKey, NotFound, S3ServiceException } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { endpointOrigin, StorageError, toStorageError } from "./storage-error";

const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const ctx = { endpoint: "http://127.0.0.1:9000", bucket: "backups", key: "lr/db/t.dump", redact: [secret] };
const meta = (httpStatusCode: number) => ({ httpStatusCode, attempts: 1, totalRetryDelay: 0 });
const service = (name: string, message: string, status: number) =>
  new S3ServiceException({ name, $fault: status >= 500 ? "server" : "client", message, $metadata: meta(status) });
const sys = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("toStorageError", () => {
  const rows: Array<[string, unknown, string, boolean]> = [
    [
      "wrong access key",
      service("InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.", 403),
      "storage target refused the request: InvalidAccessKeyId (HTTP 403): check the access key",
      false,
    ],
    [
      "wrong secret key",
      service("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.", 403),
      "storage target refused the request: SignatureDoesNotMatch (HTTP 403): check the secret key",
      false,
    ],
    [
      "missing bucket",
      new NoSuchBucket({ message: "The specified bucket does not exist", $metadata: meta(404) }),
      'bucket "backups" does not exist on http://127.0.0.1:9000 (NoSuchBucket): create it or fix the target\'s bucket',
      false,
    ],
    [
      "missing object",
      new NoSuchKey({ message: "The specified key does not exist.", $metadata: meta(404) }),
      'object "lr/db/t.dump" does not exist in bucket "backups" on http://127.0.0.1:9000 (NoSuchKey)',
      false,
    ],
    [
      "missing object on HEAD (no body)",
      new NotFound({ message: "UnknownError", $metadata: meta(404) }),
      'object "lr/db/t.dump" does not exist in bucket "backups" on http://127.0.0.1:9000 (NotFound)',
      false,
    ],
    [
      "access denied",
      service("AccessDenied", "Access Denied", 403),
      'storage target refused the request: AccessDenied (HTTP 403): check that the key may read and write bucket "backups"',
      false,
    ],
    [
      "clock skew",
      service("RequestTimeTooSkewed", "The difference between the request time and the current time is too large.", 403),
      "storage target refused the request: RequestTimeTooSkewed (HTTP 403): check this host's clock",
      false,
    ],
    [
      "server down",
      sys("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:9000"),
      "storage target http://127.0.0.1:9000 cannot be reached: connect ECONNREFUSED 127.0.0.1:9000: check the endpoint and that the server is up",
      true,
    ],
    [
      "several addresses refused",
      Object.assign(new AggregateError([sys("ECONNREFUSED", "connect ECONNREFUSED ::1:9000")], ""), { code: "ECONNREFUSED" }),
      "storage target http://127.0.0.1:9000 cannot be reached: ECONNREFUSED: check the endpoint and that the server is up",
      true,
    ],
    [
      "unknown host",
      sys("ENOTFOUND", "getaddrinfo ENOTFOUND s3.example.invalid"),
      "storage target http://127.0.0.1:9000 cannot be reached: getaddrinfo ENOTFOUND s3.example.invalid: check the endpoint and that the server is up",
      true,
    ],
    [
      "server hangs",
      Object.assign(new Error("@smithy/node-http-handler - the request socket timed out after 30000 ms of inactivity."), { name: "TimeoutError" }),
      "storage target http://127.0.0.1:9000 did not answer in time (the request socket timed out after 30000 ms of inactivity.): check that it is up and reachable",
      true,
    ],
    [
      "server failing",
      service("InternalError", "We encountered an internal error. Please try again.", 500),
      "storage target http://127.0.0.1:9000 failed: InternalError (HTTP 500): try again later",
      true,
    ],
    [
      "a message that quotes the secret",
      service("InvalidArgument", `bad header value ${secret}`, 400),
      "storage target refused the request: InvalidArgument (HTTP 400): check the target's region and endpoint",
      false,
    ],
    // Issue 22 item 5: what the remote side said never comes back (it may be an internal service's
    // page, or an echo of a request); only its code, when it looks like one, and the HTTP status.
    [
      "an internal service's page, not S3",
      Object.assign(service("UnknownError", "<html>admin console of billing-db-7, version 3.1</html>", 200), { Code: "<html><title>billing-db-7</title>" }),
      "storage target http://127.0.0.1:9000 answered UnknownError (HTTP 200)",
      false,
    ],
    [
      "a refused address (the installation's policy)",
      Object.assign(new Error("s3.example.com resolves to 10.0.0.7, a private address; refused (…)"), { name: "TargetError", code: "ETARGETREFUSED" }),
      "storage target http://127.0.0.1:9000 refused by the installation's address policy: s3.example.com resolves to 10.0.0.7, a private address; refused (…)",
      false,
    ],
  ];
  it.each(rows)("%s", (_what, err, message, retryable) => {
    const e = toStorageError(err, ctx);
    expect(e).toBeInstanceOf(StorageError);
    expect(e.message).toBe(message);
    expect(e.retryable).toBe(retryable);
    expect(e.message).not.toContain(secret);
  });

  it("keeps the reason as the target's code", () => {
    expect(toStorageError(service("SignatureDoesNotMatch", "x", 403), ctx).reason).toBe("SignatureDoesNotMatch");
    expect(toStorageError(sys("ECONNREFUSED", "x"), ctx).reason).toBe("ECONNREFUSED");
  });

  it("returns a StorageError as it is", () => {
    const e = new StorageError("x", { reason: "y", retryable: false });
    expect(toStorageError(e, ctx)).toBe(e);
  });

  it("shows only the endpoint's origin, never user info or a path", () => {
    expect(endpointOrigin("https://user:pass@s3.example.com:9000/some/path?X-Amz-Signature=abc")).toBe("https://s3.example.com:9000");
    expect(endpointOrigin("not a url")).toBe("(an invalid endpoint)");
    const e = toStorageError(sys("ECONNREFUSED", "connect ECONNREFUSED"), { ...ctx, endpoint: "http://ak:sk@127.0.0.1:9000/x" });
    expect(e.message).toBe("storage target http://127.0.0.1:9000 cannot be reached: connect ECONNREFUSED: check the endpoint and that the server is up");
  });
});
