import { describe, expect, it } from "vitest";
import { LevelrailError } from "@levelrail/spec/errors";
import { MAX_DEPTH, jsonDepth, nulPath, parseJsonBody, readCapped, refuseNul } from "./request-body";

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

/** `depth` arrays nested in one another around `inner`, as JSON text. */
const nested = (depth: number, inner = "") => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;
const bytes = (text: string) => new TextEncoder().encode(text);

describe("deep bodies", () => {
  it("keeps the first field in document order, keys and values alike", () => {
    expect(nulPath({ a: { x: "\0" }, b: "\0" })).toBe("a.x");
    expect(nulPath({ a: "\0", "K\0": "v" })).toBe("a");
    expect(nulPath({ a: "ok", "K\0": "v", z: "\0" })).toBe("K\\0");
    expect(nulPath({ x: "\0" }, ["params"])).toBe("params.x");
  });

  it("walks 100,000 levels without recursion and names the field at the bottom", () => {
    const deep = JSON.parse(nested(100_000, '"a\\u0000"')) as unknown;
    expect(nulPath(deep, [], Infinity)).toBe(Array.from({ length: 100_000 }, () => "0").join("."));
    expect(nulPath(JSON.parse(nested(100_000)) as unknown, [], Infinity)).toBeNull();
  });

  it("refuses nesting deeper than MAX_DEPTH with a 400 naming body, and takes MAX_DEPTH itself", () => {
    expect(nulPath(JSON.parse(nested(MAX_DEPTH, '"x"')) as unknown)).toBeNull();
    expect(() => refuseNul(JSON.parse(nested(MAX_DEPTH + 1)) as unknown)).toThrow(expect.objectContaining({ code: "invalid_input", field: "body" }));
    const objects = JSON.parse(`${'{"a":'.repeat(MAX_DEPTH + 1)}1${"}".repeat(MAX_DEPTH + 1)}`) as unknown;
    expect(() => refuseNul(objects)).toThrow(/nested more than 64 levels/);
  });

  it("parseJsonBody: 2 million levels (a 4 MiB body) are a 400 before they are parsed, never a stack overflow", () => {
    const err = (() => {
      try {
        parseJsonBody(bytes(nested(2_000_000)));
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(LevelrailError);
    expect(err).toMatchObject({ code: "invalid_input", field: "body", message: expect.stringContaining("nested") });
    expect(parseJsonBody(bytes(nested(MAX_DEPTH, '"[[["')))).toBeDefined();
    expect(() => parseJsonBody(bytes(nested(MAX_DEPTH + 1)))).toThrow(/nested more than/);
  });

  it("jsonDepth counts brackets outside strings only, escapes included", () => {
    expect(jsonDepth(bytes('{"a":[1,{"b":[]}]}'))).toBe(4);
    expect(jsonDepth(bytes('{"a":"[[[{{{\\"[[[","b":["\\\\"]}'))).toBe(2);
    expect(jsonDepth(bytes("1"))).toBe(0);
    expect(jsonDepth(bytes(nested(1000)), 10)).toBe(11);
  });

  it("parseJsonBody: empty is undefined, malformed and NUL are 400s", () => {
    expect(parseJsonBody(bytes("  "))).toBeUndefined();
    expect(parseJsonBody(bytes('{"a":[1]}'))).toEqual({ a: [1] });
    expect(() => parseJsonBody(bytes("{"))).toThrow(expect.objectContaining({ field: "body", message: "body: must be valid JSON" }));
    expect(() => parseJsonBody(bytes('{"n":"a\\u0000"}'))).toThrow(expect.objectContaining({ field: "n" }));
  });
});
