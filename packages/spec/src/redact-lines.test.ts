import { describe, expect, it } from "vitest";
import { REDACTED } from "./redact";
import { LineRedactor, type RedactableLine } from "./redact-lines";

const PEM = ["-----BEGIN PRIVATE KEY-----", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "BKcwggSjAgEAAoIBAQC7xyz", "-----END PRIVATE KEY-----"].join("\n");
const LONG = "x".repeat(40) + "TAIL-of-a-long-token-0123456789";

/** Feeds `lines` one at a time, the way a stream reads them, then flushes; returns what came out and when. */
function run(values: string[], lines: RedactableLine[]) {
  const r = new LineRedactor<RedactableLine>(values);
  const out: string[] = [];
  const heldAfter: number[] = [];
  for (const l of lines) {
    out.push(...r.push(l).map((x) => x.line));
    heldAfter.push(r.holding ? 1 : 0);
  }
  out.push(...r.flush().map((x) => x.line));
  return { out, text: out.join("\n"), heldAfter };
}

describe("LineRedactor", () => {
  it.each([
    ["a multi-line value (PEM key) printed as lines", [PEM], PEM.split("\n").map((line) => ({ line })), 4],
    ["a value the engine cut at a 16 KiB frame", [LONG], [{ line: `${"a".repeat(20)}${LONG.slice(0, 30)}`, partial: true }, { line: `${LONG.slice(30)} end` }], 2],
    ["a value cut into three frames", [LONG], [{ line: LONG.slice(0, 10), partial: true }, { line: LONG.slice(10, 50), partial: true }, { line: LONG.slice(50) }], 3],
    ["a value within one line", ["s3cr3t-value"], [{ line: "token=s3cr3t-value ok" }], 1],
    ["a rotated and a current value", ["old-s3cr3t", "new-s3cr3t"], [{ line: "old-s3cr3t" }, { line: "then new-s3cr3t" }], 2],
  ] as const)("%s", (_name, values, lines, n) => {
    const { out, text } = run([...values], lines.map((l) => ({ ...l })));
    expect(out).toHaveLength(n);
    expect(text).toContain(REDACTED);
    for (const v of values) {
      expect(text).not.toContain(v);
      for (const part of v.split("\n")) if (part.length >= 8) expect(text).not.toContain(part.slice(2));
    }
  });

  it("passes lines on at once unless their end could begin a value, and keeps their order", () => {
    const { out, heldAfter } = run([PEM], [{ line: "starting" }, { line: "-----BEGIN PRIVATE KEY-----" }, { line: "not a key after all" }, { line: "done" }]);
    expect(heldAfter).toEqual([0, 1, 0, 0]);
    expect(out).toEqual(["starting", "-----BEGIN PRIVATE KEY-----", "not a key after all", "done"]);
  });

  it("hands over a held start when flushed (the stream ended or went quiet), and keeps each line's fields", () => {
    const r = new LineRedactor<RedactableLine & { at: string }>([PEM]);
    expect(r.push({ line: "-----BEGIN PRIVATE KEY-----", at: "t1" })).toEqual([]);
    expect(r.flush()).toEqual([{ line: "-----BEGIN PRIVATE KEY-----", at: "t1" }]);
    expect(r.holding).toBe(false);
  });

  it("with no values, every line goes through untouched and nothing is held", () => {
    const line = { line: "-----BEGIN PRIVATE KEY-----" };
    expect(new LineRedactor([]).push(line)).toEqual([line]);
  });

  it("holds back no more than the longest value's length", () => {
    const r = new LineRedactor<RedactableLine>(["abcdefgh"]);
    expect(r.push({ line: "abcdefg", partial: true })).toEqual([]);
    expect(r.push({ line: "Z" }).map((l) => l.line)).toEqual(["abcdefg", "Z"]);
    for (let i = 0; i < 5; i++) r.push({ line: "ab", partial: true }); // each "ab" start is a possible value start
    expect(r.flush()).toEqual([{ line: "ab", partial: true }]); // only the last could still begin it
  });
});
