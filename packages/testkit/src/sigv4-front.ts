import { createHash, createHmac, type Hash, type Hmac } from "node:crypto";
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SignatureV4 } from "@smithy/signature-v4";

/**
 * A loopback HTTP front that checks AWS Signature V4 like a real S3 server before forwarding a
 * request, unchanged and streamed, to the S3 server behind it.
 *
 * Why: s3rver 3.7.1 checks V2 signatures but, for V4 ("Signature version 4 calculation is
 * unimplemeneted", lib/middleware/authentication.js), only looks the access key id up: a wrong
 * secret key is accepted. The front recomputes the signature with the SDK's own signer for the one
 * known key pair and answers 403 `SignatureDoesNotMatch` when it differs, so tests see what a real
 * target says. The payload is not re-hashed (the signed `x-amz-content-sha256` header stands for it,
 * as s3rver does too).
 */

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (d: SourceData): string | Uint8Array =>
  typeof d === "string" ? d : d instanceof ArrayBuffer ? new Uint8Array(d) : new Uint8Array(d.buffer, d.byteOffset, d.byteLength);

/** node:crypto behind the signer's `Checksum` interface (sha256, or HMAC-sha256 with a key). */
class Sha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash("sha256") : createHmac("sha256", bytes(this.secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

const xmlError = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;

function refuse(req: IncomingMessage, res: ServerResponse, code: string, message: string): void {
  req.resume(); // discard a body the client is still sending, so it reads the answer
  res.writeHead(403, { "content-type": "application/xml" });
  res.end(xmlError(code, message));
}

interface ParsedAuthorization {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

/** `AWS4-HMAC-SHA256 Credential=AK/20260101/us-east-1/s3/aws4_request, SignedHeaders=a;b, Signature=hex` */
export function parseAuthorization(header: string): ParsedAuthorization | undefined {
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(header.trim());
  if (!m) return undefined;
  const [, accessKeyId = "", date = "", region = "", service = "", signed = "", signature = ""] = m;
  return { accessKeyId, date, region, service, signedHeaders: signed.split(";"), signature };
}

/** `20260101T120000Z` → Date */
function parseAmzDate(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return undefined;
  return new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
}

/** The signature the signer computes for this request with the known key pair. */
async function expectedSignature(req: IncomingMessage, auth: ParsedAuthorization, secretAccessKey: string): Promise<string | undefined> {
  const signingDate = parseAmzDate(String(req.headers["x-amz-date"] ?? ""));
  if (!signingDate) return undefined;
  const url = new URL(req.url ?? "/", "http://front.invalid");
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  const headers: Record<string, string> = {};
  for (const name of auth.signedHeaders) {
    const v = req.headers[name];
    if (v !== undefined) headers[name] = Array.isArray(v) ? v.join(",") : v;
  }
  const signer = new SignatureV4({
    credentials: { accessKeyId: auth.accessKeyId, secretAccessKey },
    region: auth.region,
    service: auth.service,
    sha256: Sha256,
    uriEscapePath: false, // S3 signs the path as sent
    applyChecksum: false,
  });
  const signed = await signer.sign(
    { method: req.method ?? "GET", protocol: "http:", hostname: "front.invalid", path: url.pathname, query, headers, body: undefined },
    { signingDate, signableHeaders: new Set(auth.signedHeaders) },
  );
  const authorization = signed.headers["authorization"];
  return authorization ? parseAuthorization(authorization)?.signature : undefined;
}

/**
 * Starts the front on a free loopback port, forwarding to `upstreamPort` on 127.0.0.1.
 * `abortMultipart` answers AbortMultipartUpload (`DELETE /<bucket>/<key>?uploadId=…`) for a server
 * that lacks it (s3rver answers 405 and keeps the parts); it returns whether the upload existed.
 */
export async function startSigV4Front(opts: {
  upstreamPort: number;
  accessKeyId: string;
  secretAccessKey: string;
  abortMultipart?: (bucket: string, uploadId: string) => boolean;
}): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    void (async () => {
      const header = req.headers["authorization"];
      if (typeof header !== "string") return refuse(req, res, "AccessDenied", "Access Denied");
      const auth = parseAuthorization(header);
      if (!auth) return refuse(req, res, "AuthorizationHeaderMalformed", "The authorization header is malformed.");
      if (auth.accessKeyId !== opts.accessKeyId) {
        return refuse(req, res, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.");
      }
      const expected = await expectedSignature(req, auth, opts.secretAccessKey);
      if (expected !== auth.signature) {
        return refuse(req, res, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method.");
      }
      const url = new URL(req.url ?? "/", "http://front.invalid");
      const uploadId = url.searchParams.get("uploadId");
      if (req.method === "DELETE" && uploadId !== null && opts.abortMultipart) {
        const bucket = decodeURIComponent(url.pathname.split("/")[1] ?? "");
        req.resume();
        if (opts.abortMultipart(bucket, uploadId)) {
          res.writeHead(204).end();
        } else {
          res.writeHead(404, { "content-type": "application/xml" });
          res.end(xmlError("NoSuchUpload", "The specified upload does not exist."));
        }
        return;
      }
      const up = httpRequest(
        { host: "127.0.0.1", port: opts.upstreamPort, method: req.method, path: req.url, headers: req.headers },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
          upRes.on("error", () => res.destroy());
        },
      );
      up.on("error", () => res.destroy());
      req.on("error", () => up.destroy());
      res.on("close", () => {
        if (!res.writableFinished) up.destroy();
      });
      req.pipe(up);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
