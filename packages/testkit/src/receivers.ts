import { createHmac, timingSafeEqual } from "node:crypto";
import { type IncomingHttpHeaders, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Whether `header` is `sha256=<hex HMAC-SHA256 of body with secret>`, checked as a receiver should (constant time). */
export function validSignature(secret: string, body: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== "string" || !header.startsWith("sha256=")) return false;
  const want = Buffer.from(createHmac("sha256", secret).update(body).digest("hex"));
  const got = Buffer.from(header.slice("sha256=".length));
  return want.length === got.length && timingSafeEqual(want, got);
}

/**
 * A webhook receiver on 127.0.0.1: records every request (and every connection, even one that sends
 * nothing) and answers the statuses queued with `answer` in turn, then 200. A 3xx answers with a
 * `Location` to `redirectTo`.
 */
export async function webhookReceiver() {
  const requests: ReceivedRequest[] = [];
  const queue: number[] = [];
  let connections = 0;
  let redirectTo = "http://127.0.0.1:9/";
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) });
      const status = queue.shift() ?? 200;
      res.writeHead(status, status >= 300 && status < 400 ? { location: redirectTo } : {});
      res.end(status >= 400 ? "no" : "ok");
    });
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/hooks/levelrail`,
    requests,
    /** TCP connections accepted so far. */
    connections: () => connections,
    answer(...statuses: number[]) {
      queue.push(...statuses);
    },
    redirectTo(url: string) {
      redirectTo = url;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as sent (headers and body). */
  raw: string;
  /** Who logged in (null: no AUTH). */
  user: string | null;
}

/** The value of a header of a raw message (unfolded). */
export function mailHeader(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? "";
  const unfolded = head.replace(/\r?\n[ \t]+/g, " ");
  const line = unfolded.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

/** A message's body with quoted-printable soft breaks and escapes undone. */
export function mailBody(raw: string): string {
  const body = raw.split(/\r?\n\r?\n/).slice(1).join("\n\n");
  return body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))).replace(/\r\n/g, "\n");
}

/**
 * An SMTP server on 127.0.0.1 (no TLS) that keeps every message. With `login`, AUTH is required
 * and only that username and password are accepted; a refused login answers `authError`.
 */
export async function smtpReceiver(login?: { username: string; password: string }, o: { authError?: string } = {}) {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authOptional: !login,
    logger: false,
    onAuth(auth, _session, cb) {
      if (login && auth.username === login.username && auth.password === login.password) cb(null, { user: auth.username });
      else cb(new Error(o.authError ?? "invalid login"));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
          user: typeof session.user === "string" ? session.user : null,
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
