import { type AddressInfo, type Socket, createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { pgAccepting, readAnswer, startupPacket } from "./pg-wire";

/** A PostgreSQL error message with these fields (`S`everity, `C`ode, `M`essage). */
function errorMessage(code: string): Buffer {
  const fields = Buffer.concat([Buffer.from(`SFATAL\0C${code}\0Mnope\0`), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write("E", 0);
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}
const AUTH_MD5 = Buffer.from([0x52, 0, 0, 0, 12, 0, 0, 0, 5, 1, 2, 3, 4]);

const servers: { close: () => void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A loopback server that does `answer` with each connection (after reading its startup packet). */
async function server(answer: (socket: Socket, startup: Buffer) => void): Promise<number> {
  const sockets: Socket[] = [];
  const srv = createServer((socket) => {
    sockets.push(socket);
    socket.once("data", (startup: Buffer) => answer(socket, startup));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  servers.push({ close: () => (sockets.forEach((s) => s.destroy()), srv.close()) });
  return (srv.address() as AddressInfo).port;
}

const login = { user: "shop", database: "shop-db" };
const ask = (port: number, signal = AbortSignal.timeout(2_000)) => pgAccepting("127.0.0.1", port, login, signal);

describe("the worker's own PostgreSQL handshake", () => {
  it("sends protocol 3.0 with user and database, and never a password", () => {
    const p = startupPacket("shop", "shop-db");
    expect(p.readInt32BE(0)).toBe(p.length);
    expect(p.readInt32BE(4)).toBe(196608);
    expect(p.subarray(8).toString()).toBe("user\0shop\0database\0shop-db\0application_name\0levelrail-probe\0\0");
  });

  it("reads an authentication request, or any error but 'cannot connect now', as accepting (as PQping does)", () => {
    expect(readAnswer(AUTH_MD5)).toEqual({ accepting: true, detail: "accepting connections" });
    expect(readAnswer(errorMessage("28P01"))?.accepting).toBe(true);
    expect(readAnswer(errorMessage("57P03"))).toEqual({ accepting: false, detail: "the server is starting up or shutting down" });
    expect(readAnswer(errorMessage("57P03").subarray(0, 9))).toBeNull();
    expect(readAnswer(Buffer.from("HTTP/1.1 400 Bad Request"))?.accepting).toBe(false);
  });

  it("answers over TCP: accepting, starting up, refused", async () => {
    let seen: Buffer = Buffer.alloc(0);
    expect(await ask(await server((s, startup) => ((seen = startup), s.write(AUTH_MD5))))).toBe(true);
    expect(seen.subarray(8).toString()).toContain("user\0shop\0");
    expect(await ask(await server((s) => s.end(errorMessage("57P03"))))).toBe(false);
    const closed = await server(() => {});
    servers.pop()?.close();
    expect(await ask(closed)).toBe(false);
  });

  it("is stopped at its deadline by a server that never answers, and cuts off one that talks on", async () => {
    const started = Date.now();
    await expect(ask(await server(() => {}), AbortSignal.timeout(300))).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2_000);
    const endless = await server((s) => {
      const chunk = Buffer.alloc(64 * 1024, 0x45); // "EEEE…": an error of no sane length, forever
      const more = () => s.write(chunk) && setImmediate(more);
      more();
      s.on("drain", more);
    });
    expect(await ask(endless)).toBe(false);
  });
});
