import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { type IncomingHttpHeaders, type Server, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptsBrotli, brotliStatic, precompress } from "./static-br.mjs";

describe("acceptsBrotli", () => {
  it.each([
    ["gzip, deflate, br, zstd", true],
    ["br;q=0.5", true],
    ["gzip, *", true],
    ["BR", true],
    ["gzip, deflate", false],
    ["br;q=0, *", false],
    ["gzip, *;q=0", false],
    ["", false],
    [undefined, false],
  ])("%s → %s", (header, expected) => {
    expect(acceptsBrotli(header)).toBe(expected);
  });
});

describe("precompressed static files", () => {
  let dir: string;
  let server: Server;
  let port: number;
  const big = `/* a chunk */\n${"export const answer = 42; function f(x) { return x * 2 + answer; }\n".repeat(200)}`;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "static-br-"));
    mkdirSync(join(dir, "static", "chunks"), { recursive: true });
    writeFileSync(join(dir, "static", "chunks", "app.js"), big);
    writeFileSync(join(dir, "static", "chunks", "style.css"), `body { color: red; }\n`.repeat(100));
    writeFileSync(join(dir, "static", "chunks", "tiny.js"), "1;");
    writeFileSync(join(dir, "static", "chunks", "font.woff2"), Buffer.alloc(4096, 7));
    writeFileSync(join(dir, "secret.js"), big);
    const serve = brotliStatic(dir, [{ key: "X-Frame-Options", value: "DENY" }]);
    server = createServer((req, res) => {
      void serve(req, res).then((answered) => {
        if (!answered) res.writeHead(299).end("next");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (path: string, headers: Record<string, string>, method = "GET") =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path, method, headers }, (res) => {
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => parts.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
      });
      req.on("error", reject);
      req.end();
    });

  it("writes a .br beside every compressible file over 1 kB once, and nothing for fonts or tiny files", async () => {
    expect(await precompress(dir)).toMatchObject({ files: 2 });
    const br = readFileSync(join(dir, "static", "chunks", "app.js.br"));
    expect(brotliDecompressSync(br).toString()).toBe(big);
    expect(br.length).toBeLessThan(big.length / 10);
    expect(() => statSync(join(dir, "static", "chunks", "tiny.js.br"))).toThrow();
    expect(() => statSync(join(dir, "static", "chunks", "font.woff2.br"))).toThrow();
    // Done already: nothing to write.
    expect(await precompress(dir)).toEqual({ files: 0, raw: 0, compressed: 0 });
    // A file rebuilt after its .br gets a new one.
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(dir, "static", "chunks", "style.css"), later, later);
    expect(await precompress(dir)).toMatchObject({ files: 1 });
  });

  it("answers a browser that accepts br from the .br, with the type, caching and given headers", async () => {
    const res = await get("/_next/static/chunks/app.js", { "accept-encoding": "gzip, deflate, br, zstd" });
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.headers["content-type"]).toBe("application/javascript; charset=UTF-8");
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(res.headers.vary).toBe("Accept-Encoding");
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(Number(res.headers["content-length"])).toBe(res.body.length);
    expect(brotliDecompressSync(res.body).toString()).toBe(big);

    const again = await get("/_next/static/chunks/app.js", { "accept-encoding": "br", "if-none-match": String(res.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);

    const head = await get("/_next/static/chunks/app.js", { "accept-encoding": "br" }, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers["content-length"]).toBe(res.headers["content-length"]);
    expect(head.body.length).toBe(0);
  });

  it("leaves to Next a browser without br, a file without its .br, other paths and any way out of static/", async () => {
    const next = async (path: string, encoding = "br") => (await get(path, { "accept-encoding": encoding })).body.toString();
    expect(await next("/_next/static/chunks/app.js", "gzip, deflate")).toBe("next");
    expect(await next("/_next/static/chunks/app.js", "br;q=0")).toBe("next");
    expect(await next("/_next/static/chunks/tiny.js")).toBe("next");
    expect(await next("/_next/static/chunks/font.woff2")).toBe("next");
    expect(await next("/_next/static/chunks/missing.js")).toBe("next");
    expect(await next("/static/chunks/app.js")).toBe("next");
    expect(await next("/_next/static/../secret.js")).toBe("next");
    expect(await next("/_next/static/chunks/..%2F..%2Fsecret.js")).toBe("next");
    expect(await next("/_next/static/%2e%2e/secret.js")).toBe("next");
    expect(await next("/_next/static/%E0%A4%A.js")).toBe("next");
    expect((await get("/_next/static/chunks/app.js", { "accept-encoding": "br" }, "POST")).body.toString()).toBe("next");
  });

  it("looks a file without its .br up again next time: one compressed after the server started is sent as brotli", async () => {
    const late = join(dir, "static", "chunks", "late.js");
    writeFileSync(late, big);
    expect((await get("/_next/static/chunks/late.js", { "accept-encoding": "br" })).body.toString()).toBe("next");
    await precompress(dir);
    const res = await get("/_next/static/chunks/late.js", { "accept-encoding": "br" });
    expect(res.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(res.body).toString()).toBe(big);
  });
});
