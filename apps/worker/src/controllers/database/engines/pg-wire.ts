import { connect } from "node:net";

/** The most of a server's first answer read (an error's text is short; a server that talks on is cut off). */
const MAX_ANSWER_BYTES = 8 * 1024;
/** SQLSTATE 57P03, cannot_connect_now: the server is starting up, shutting down or in recovery. */
const CANNOT_CONNECT_NOW = "57P03";

/** The startup packet of protocol 3.0 for `user` and `database` (no password is ever sent). */
export function startupPacket(user: string, database: string): Buffer {
  const pairs = ["user", user, "database", database, "application_name", "levelrail-probe"];
  const body = Buffer.concat([...pairs.map((s) => Buffer.from(`${s}\0`, "utf8")), Buffer.from([0])]);
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(196608, 4); // 3.0
  return Buffer.concat([head, body]);
}

/**
 * What the server's first message says, as PostgreSQL's own `PQping` reads it: an authentication
 * request, or any error but "cannot connect now", means it accepts connections; null while the
 * message is incomplete. Anything else is no PostgreSQL answer.
 */
export function readAnswer(bytes: Buffer): { accepting: boolean; detail: string } | null {
  if (bytes.length < 5) return null;
  const kind = String.fromCharCode(bytes[0]!);
  const length = bytes.readInt32BE(1);
  if (kind === "R") return { accepting: true, detail: "accepting connections" };
  if (kind !== "E") return { accepting: false, detail: `not a PostgreSQL answer (message ${JSON.stringify(kind)})` };
  if (length < 4 || length > MAX_ANSWER_BYTES) return { accepting: false, detail: "not a PostgreSQL answer (an error of no sane length)" };
  if (bytes.length < 1 + length) return null;
  let code = "";
  for (let at = 5; at < 1 + length && bytes[at] !== 0; ) {
    const field = String.fromCharCode(bytes[at]!);
    const end = bytes.indexOf(0, at + 1);
    if (end < 0) break;
    if (field === "C") code = bytes.subarray(at + 1, end).toString("utf8");
    at = end + 1;
  }
  if (code === CANNOT_CONNECT_NOW) return { accepting: false, detail: "the server is starting up or shutting down" };
  return { accepting: true, detail: "accepting connections" };
}

/**
 * Whether a PostgreSQL server at `host:port` accepts connections, asked by the worker itself over
 * TCP (no client of the tenant's image runs): one startup packet, then its first answer, read to at
 * most 8 KiB, within `signal`. A refused or reset connection is "not yet"; an aborted one rejects.
 */
export function pgAccepting(host: string, port: number, login: { user: string; database: string }, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let answer = Buffer.alloc(0);
    const finish = (fn: () => void) => {
      signal.removeEventListener("abort", stop);
      socket.destroy();
      fn();
    };
    const stop = () => finish(() => reject(signal.reason instanceof Error ? signal.reason : new Error("the check was stopped")));
    if (signal.aborted) return stop();
    signal.addEventListener("abort", stop, { once: true });
    socket.on("connect", () => socket.write(startupPacket(login.user, login.database)));
    socket.on("data", (chunk: Buffer) => {
      answer = Buffer.concat([answer, chunk]).subarray(0, MAX_ANSWER_BYTES + 5);
      const read = readAnswer(answer);
      if (read) finish(() => resolve(read.accepting));
      else if (answer.length > MAX_ANSWER_BYTES) finish(() => resolve(false));
    });
    socket.on("error", () => finish(() => resolve(false)));
    socket.on("close", () => finish(() => resolve(false)));
  });
}
