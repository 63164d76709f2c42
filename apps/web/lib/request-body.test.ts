import { describe, expect, it } from "vitest";
import { LevelrailError } from "@levelrail/spec/errors";
import { nulPath, readCapped, refuseNul } from "./request-body";

const MiB = 1024 * 1024;

/** A request whose body arrives in chunks with no Content-Length, as a chunked upload does. */
function chunked(total: number, chunk = 64 * 1024): { req: Request; sent: () => number } {
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= total) return c.close();
      const n = Math.min(chunk, total - sent);
      sent += n;
      c.enqueue(new Uint8Array(n).fill(0x61));
    },
  });
  return { req: new Request("http://x/api", { method: "POST", body: stream, duplex: "half" } as RequestInit), sent: () => sent };
}

async function refusal(p: Promise<unknown>): Promise<LevelrailError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof LevelrailError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("readCapped", () => {
  it("reads a body under the cap whole", async () => {
    const { req } = chunked(3 * MiB);
    expect((await readCapped(req, 4 * MiB)).byteLength).toBe(3 * MiB);
  });

  it("refuses a 6 MiB chunked body with too_large as soon as it passes the cap, without reading the rest", async () => {
    const { req, sent } = chunked(6 * MiB);
    const err = await refusal(readCapped(req, 4 * MiB));
    expect(err).toMatchObject({ code: "too_large", field: "body" });
    expect(sent()).toBeLessThan(5 * MiB);
  });

  it("refuses a declared Content-Length over the cap before reading", async () => {
    const req = new Request("http://x/api", { method: "POST", body: "{}", headers: { "content-length": String(6 * MiB) } });
    expect(await refusal(readCapped(req, 4 * MiB))).toMatchObject({ code: "too_large" });
  });
});

describe("NUL bytes", () => {
  it("names the first field holding one, in values, arrays and keys", () => {
    expect(nulPath({ name: "ok", env: { A: "x\0y" } })).toBe("env.A");
    expect(nulPath({ hooks: { preDeploy: ["a", "b\0"] } })).toBe("hooks.preDeploy.1");
    expect(nulPath({ env: { "K\0": "v" } })).toBe("env.K\\0");
    expect(nulPath("\0")).toBe("body");
    expect(nulPath({ name: "fine", n: 3, list: [null, true] })).toBeNull();
  });

  it("refuseNul throws a 400 naming the field", () => {
    expect(() => refuseNul({ name: "a\0" })).toThrow(expect.objectContaining({ code: "invalid_input", field: "name" }));
  });
});
