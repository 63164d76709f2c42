import { describe, expect, it } from "vitest";
import { LevelrailError, errorHeaders, httpStatus } from "@levelrail/spec/errors";
import { StreamSlots, TRUNCATED_HEADER, TailWindow, lineBytes } from "./caps";
import type { LogEvent, LogLineEvent } from "./follow";
import { tailResponse } from "./service-logs";

const line = (n: number, size = 100): LogLineEvent => ({ type: "line", container: "c", stream: "stdout", at: `2026-01-01T00:00:00.${String(n).padStart(9, "0")}Z`, line: `${n} `.padEnd(size, "x") });

async function* events(count: number, size: number): AsyncGenerator<LogEvent> {
  for (let i = 1; i <= count; i++) yield line(i, size);
}

function refusal(f: () => unknown): LevelrailError {
  try {
    f();
  } catch (err) {
    if (err instanceof LevelrailError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("TailWindow", () => {
  it("keeps every line under the cap, in order, and says nothing was dropped", () => {
    const w = new TailWindow(10_000);
    for (let i = 1; i <= 5; i++) w.push(line(i));
    expect(w.kept().map((l) => l?.line.split(" ")[0])).toEqual(["1", "2", "3", "4", "5"]);
    expect(w.dropped).toBe(0);
  });

  it("keeps the newest lines that fit the cap and counts the ones left out", () => {
    const per = lineBytes(line(1, 1000));
    const w = new TailWindow(per * 10 + 2);
    for (let i = 1; i <= 10_000; i++) w.push(line(i, 1000));
    const kept = w.kept().map((l) => Number(l?.line.split(" ")[0]));
    expect(kept).toEqual(Array.from({ length: 10 }, (_, i) => 9991 + i));
    expect(w.dropped).toBe(9990);
  });

  it("keeps one line larger than the cap alone, never none", () => {
    const w = new TailWindow(50);
    w.push(line(1, 10));
    w.push(line(2, 500));
    expect(w.kept().map((l) => l?.line.length)).toEqual([500]);
    expect(w.dropped).toBe(1);
  });

  it("counts a line's bytes as its JSON in UTF-8, escapes included", () => {
    expect(lineBytes({ ...line(1), line: "é".repeat(10) }) - lineBytes({ ...line(1), line: "e".repeat(10) })).toBe(10);
    expect(lineBytes({ ...line(1), line: '"'.repeat(10) }) - lineBytes({ ...line(1), line: "e".repeat(10) })).toBe(10);
    const l = line(7);
    const { type: _t, ...wire } = l;
    expect(lineBytes(l)).toBe(JSON.stringify(wire).length + 1);
  });
});

describe("tailResponse", () => {
  it("10,000 lines of 16 KiB come back as the newest within the cap, with the truncation header", async () => {
    const cap = 1024 * 1024;
    const res = await tailResponse(events(10_000, 16 * 1024), cap);
    const body = await res.text();
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(cap);
    const lines = JSON.parse(body) as { line: string; at: string; container: string }[];
    expect(lines.length).toBeGreaterThan(50);
    expect(lines.at(-1)?.line.startsWith("10000 ")).toBe(true);
    expect(Number(res.headers.get(TRUNCATED_HEADER))).toBe(10_000 - lines.length);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(Object.keys(lines[0]!).sort()).toEqual(["at", "container", "line", "stream"]);
  });

  it("has no truncation header when everything fit, and answers [] with no container", async () => {
    const res = await tailResponse(events(3, 10), 1024 * 1024);
    expect(res.headers.get(TRUNCATED_HEADER)).toBeNull();
    expect(await res.json()).toHaveLength(3);
    expect(await (await tailResponse(null, 10)).json()).toEqual([]);
  });
});

describe("StreamSlots", () => {
  const slots = () => new StreamSlots({ perUser: 2, total: 3, retryAfterSeconds: 5 });

  it("refuses a user's stream over their limit with a 429 and Retry-After; another user still gets one", () => {
    const s = slots();
    s.acquire("a", "o1");
    s.acquire("a", "o1");
    const err = refusal(() => s.acquire("a", "o1"));
    expect(err).toMatchObject({ code: "too_many", field: "follow" });
    expect(err.message).toContain("2 live log streams");
    expect(httpStatus(err.code)).toBe(429);
    expect(errorHeaders(err)).toEqual({ "retry-after": "5" });
    expect(() => s.acquire("b", "o1")).not.toThrow();
  });

  it("refuses any stream over the installation's limit", () => {
    const s = slots();
    s.acquire("a", "o1");
    s.acquire("b", "o1");
    s.acquire("c", "o1");
    expect(refusal(() => s.acquire("d", "o1")).message).toContain("limit of 3");
  });

  it("gives a slot back once, however often its release runs", () => {
    const s = slots();
    const r = s.acquire("a", "o1");
    s.acquire("a", "o1");
    r();
    r();
    expect(s.open("a")).toBe(1);
    expect(s.open()).toBe(1);
    s.acquire("a", "o1");
    expect(() => s.acquire("a", "o1")).toThrow(LevelrailError);
  });
});

describe("errorHeaders", () => {
  it("is empty for an error that says nothing of retrying, and rounds up to whole seconds", () => {
    expect(errorHeaders(new LevelrailError("not_found", "x"))).toEqual({});
    expect(errorHeaders(new LevelrailError("too_many", "x", { retryAfterSeconds: 0.2 }))).toEqual({ "retry-after": "1" });
  });
});
