import { Agent, createServer, get } from "node:http";
import { type AddressInfo, connect, createServer as createTcpServer } from "node:net";
import * as dnsPacket from "dns-packet";
import { afterEach, describe, expect, it } from "vitest";
import { DnsFrames, type SniffingServer, askTcp, frame, isDnsFirstByte, sniffingServer } from "./tcp";

describe("DNS over TCP framing", () => {
  it("prefixes the length and splits a stream back into messages, whatever the chunks", () => {
    const a = Buffer.from("first message");
    const b = Buffer.alloc(300, 7);
    const stream = Buffer.concat([frame(a), frame(b), frame(a)]);
    expect(stream.readUInt16BE(0)).toBe(a.length);
    for (const cut of [1, 2, 5, 15, 16, 200, stream.length]) {
      const f = new DnsFrames();
      const out = [...f.push(stream.subarray(0, cut)), ...f.push(stream.subarray(cut))];
      expect(out.map((m) => m.toString("hex"))).toEqual([a, b, a].map((m) => m.toString("hex")));
    }
  });

  it("tells a DNS message (length below 8 KiB) from an HTTP request by its first byte", () => {
    expect(isDnsFirstByte(frame(Buffer.alloc(512))[0]!)).toBe(true);
    expect(isDnsFirstByte(frame(Buffer.alloc(8191))[0]!)).toBe(true);
    for (const m of ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]) expect(isDnsFirstByte(m.charCodeAt(0))).toBe(false);
  });
});

describe("one port for DNS over TCP and HTTP", () => {
  let tcp: SniffingServer | null = null;
  afterEach(async () => {
    await tcp?.close(100);
    tcp = null;
  });

  const start = async () => {
    const http = createServer((req, res) => res.end(`http ${req.url}`));
    tcp = sniffingServer(async (msg) => {
      const q = dnsPacket.decode(msg);
      return dnsPacket.encode({ type: "response", id: q.id, questions: q.questions, answers: [{ type: "A", name: q.questions![0]!.name, data: "127.0.0.9" }] });
    }, http);
    await new Promise<void>((r) => tcp!.server.listen(0, "127.0.0.1", r));
    return (tcp.server.address() as AddressInfo).port;
  };
  const query = (id: number, name: string) => dnsPacket.encode({ type: "query", id, questions: [{ type: "A", name }] });

  it("answers DNS questions, several on one connection, and HTTP requests with keep-alive, on the same port", async () => {
    const port = await start();
    const reply = dnsPacket.decode(await askTcp(port, query(5, "a.example"), 2000));
    expect(reply).toMatchObject({ id: 5, answers: [{ data: "127.0.0.9" }] });
    // Two questions in one write, read back in order.
    const replies = await new Promise<Buffer[]>((resolve, reject) => {
      const s = connect({ host: "127.0.0.1", port });
      const f = new DnsFrames();
      const got: Buffer[] = [];
      s.on("error", reject);
      s.on("data", (c: Buffer) => {
        got.push(...f.push(c));
        if (got.length < 2) return;
        s.destroy();
        resolve(got);
      });
      s.write(Buffer.concat([frame(query(1, "one.example")), frame(query(2, "two.example"))]));
    });
    expect(replies.map((r) => dnsPacket.decode(r).id)).toEqual([1, 2]);
    // HTTP: several requests on one keep-alive connection.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    for (const path of ["/healthz", "/ask?domain=x", "/"]) {
      const body = await new Promise<string>((resolve, reject) => {
        get({ host: "127.0.0.1", port, path, agent }, (res) => {
          sockets.add(res.socket);
          let text = "";
          res.on("data", (c: Buffer) => (text += c.toString()));
          res.on("end", () => resolve(text));
        }).on("error", reject);
      });
      expect(body).toBe(`http ${path}`);
    }
    expect(sockets.size).toBe(1); // one connection for the three
    agent.destroy();
  });

  it("a closed port refuses at once, and a listener that never answers times out", async () => {
    const port = await start();
    await tcp!.close(100);
    tcp = null;
    const t0 = performance.now();
    await expect(askTcp(port, query(1, "x.example"), 2000)).rejects.toThrow(/ECONNREFUSED/);
    expect(performance.now() - t0).toBeLessThan(200);
    const silent = createTcpServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    await expect(askTcp((silent.address() as AddressInfo).port, query(1, "x.example"), 100)).rejects.toThrow(/within 100 ms/);
    silent.close();
  });
});

