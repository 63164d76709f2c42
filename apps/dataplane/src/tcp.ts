import type { Server as HttpServer } from "node:http";
import { type Server, type Socket, connect, createServer } from "node:net";

/**
 * One TCP port for two protocols: DNS over TCP (RFC 1035 §4.2.2: each message after a 2-byte
 * length) for Caddy, and HTTP (health, TLS `ask`, the fallback page). A DNS message of ours is
 * shorter than 8 KiB, so its first byte is below 0x20; an HTTP request starts with a method name.
 */
export const isDnsFirstByte = (b: number): boolean => b < 0x20;

/** `msg` with its 2-byte length in front. */
export function frame(msg: Buffer): Buffer {
  const head = Buffer.alloc(2);
  head.writeUInt16BE(msg.length);
  return Buffer.concat([head, msg]);
}

/** Splits a byte stream into the DNS messages it carries (chunks may cut a message or hold several). */
export class DnsFrames {
  private buf: Buffer = Buffer.alloc(0);

  /** The messages completed by `chunk`, in order. */
  push(chunk: Buffer): Buffer[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: Buffer[] = [];
    while (this.buf.length >= 2) {
      const len = this.buf.readUInt16BE(0);
      if (this.buf.length < 2 + len) break;
      out.push(this.buf.subarray(2, 2 + len));
      this.buf = this.buf.subarray(2 + len);
    }
    return out;
  }
}

/** Answers one DNS message (null: no reply). */
export type DnsHandler = (msg: Buffer) => Promise<Buffer | null>;

/** A DNS connection: answers each message in order, closes when idle (a resolver opens one per query). */
function serveDns(socket: Socket, first: Buffer, dns: DnsHandler, idleMs: number): void {
  const frames = new DnsFrames();
  let chain = Promise.resolve();
  const take = (chunk: Buffer) => {
    for (const msg of frames.push(chunk)) {
      chain = chain.then(async () => {
        const reply = await dns(msg).catch(() => null);
        if (reply && !socket.destroyed) socket.write(frame(reply));
      });
    }
  };
  socket.setTimeout(idleMs, () => socket.destroy());
  socket.on("data", take);
  take(first);
  socket.resume();
}

export interface SniffingServer {
  server: Server;
  /** Stops listening, closes idle connections, and after `graceMs` the ones still busy. */
  close(graceMs?: number): Promise<void>;
}

/**
 * A TCP server that looks at the first bytes of each connection: DNS goes to `dns`, anything else
 * to `http` (which never listens itself).
 */
export function sniffingServer(dns: DnsHandler, http: HttpServer, idleMs = 10_000): SniffingServer {
  const sockets = new Set<Socket>();
  const dnsSockets = new Set<Socket>();
  // `http` tracks its connections (to close the idle ones) from its `listening` event on.
  http.emit("listening");
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => {
      sockets.delete(socket);
      dnsSockets.delete(socket);
    });
    socket.on("error", () => socket.destroy());
    // A connection that never says anything is closed.
    const silent = () => socket.destroy();
    socket.setTimeout(idleMs, silent);
    socket.once("data", (first: Buffer) => {
      socket.pause();
      socket.setTimeout(0);
      socket.removeListener("timeout", silent);
      if (isDnsFirstByte(first[0]!)) {
        dnsSockets.add(socket);
        return serveDns(socket, first, dns, idleMs);
      }
      socket.removeAllListeners("error");
      socket.unshift(first);
      http.emit("connection", socket);
      socket.resume();
    });
  });
  const close = (graceMs = 3000) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        for (const s of sockets) s.destroy();
      }, graceMs);
      server.close(() => {
        clearTimeout(timer);
        resolve();
      });
      http.closeIdleConnections();
      for (const s of dnsSockets) s.destroy();
    });
  return { server, close };
}

/** One DNS query over TCP to 127.0.0.1:`port`: the reply, or an error (refused, reset, closed, or no answer within `timeoutMs`). */
export function askTcp(port: number, msg: Buffer, timeoutMs: number, host = "127.0.0.1"): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const frames = new DnsFrames();
    const done = (err: Error | null, reply?: Buffer) => {
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(reply!);
    };
    const timer = setTimeout(() => done(new Error(`no answer from ${host}:${port} within ${timeoutMs} ms`)), timeoutMs);
    socket.on("error", (err) => done(err));
    socket.on("close", () => done(new Error(`${host}:${port} closed the connection`)));
    socket.on("data", (chunk: Buffer) => {
      const [reply] = frames.push(chunk);
      if (reply) done(null, reply);
    });
    socket.write(frame(msg));
  });
}
