import { describe, expect, it } from "vitest";
import { MAX_LINE_CHARS, engineSince, fixedTime, framesToLines } from "./logs";

const frame = (kind: 1 | 2, text: string) => {
  const body = Buffer.from(text, "utf8");
  const head = Buffer.alloc(8);
  head[0] = kind;
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body]);
};

async function collect(chunks: Buffer[]) {
  const out = [];
  for await (const l of framesToLines((async function* () { yield* chunks; })())) out.push(l);
  return out;
}

describe("framesToLines", () => {
  it("reads timestamped frames split anywhere into lines, with their stream and a sortable time", async () => {
    const all = Buffer.concat([frame(1, "2026-01-01T00:00:01.5Z hello\n"), frame(2, "2026-01-01T00:00:02.123456789Z oops\r\n"), frame(1, "2026-01-01T00:00:03.000000001Z  spaced\n")]);
    const chunks = [all.subarray(0, 3), all.subarray(3, 20), all.subarray(20)];
    expect(await collect(chunks)).toEqual([
      { stream: "stdout", at: "2026-01-01T00:00:01.500000000Z", line: "hello" },
      { stream: "stderr", at: "2026-01-01T00:00:02.123456789Z", line: "oops" },
      { stream: "stdout", at: "2026-01-01T00:00:03.000000001Z", line: " spaced" },
    ]);
  });

  it("cuts a very long line, and reads a TTY container's unframed output by newlines", async () => {
    const [long] = await collect([frame(1, `2026-01-01T00:00:01Z ${"x".repeat(MAX_LINE_CHARS + 10)}\n`)]);
    expect(long?.line.length).toBe(MAX_LINE_CHARS + 1);
    expect(await collect([Buffer.from("2026-01-01T00:00:01Z a\n2026-01-01T00:00:02Z b\npartial")])).toEqual([
      { stream: "stdout", at: "2026-01-01T00:00:01.000000000Z", line: "a" },
      { stream: "stdout", at: "2026-01-01T00:00:02.000000000Z", line: "b" },
      { stream: "stdout", at: "2026-01-01T00:00:02.000000000Z", line: "partial", partial: true },
    ]);
  });

  it("marks a line the engine cut into 16 KiB frames as partial up to its last frame", async () => {
    const first = "a".repeat(16 * 1024);
    expect(await collect([frame(1, `2026-01-01T00:00:01Z ${first}`), frame(1, "2026-01-01T00:00:01.1Z rest\n")])).toEqual([
      { stream: "stdout", at: "2026-01-01T00:00:01.000000000Z", line: first, partial: true },
      { stream: "stdout", at: "2026-01-01T00:00:01.100000000Z", line: "rest" },
    ]);
  });
});

describe("times", () => {
  it("pads fractions to nine digits and gives the engine exact Unix seconds", () => {
    expect(fixedTime("2026-01-01T00:00:01Z")).toBe("2026-01-01T00:00:01.000000000Z");
    expect(fixedTime("not a time")).toBeNull();
    expect(engineSince("2026-01-01T00:00:01.123456789Z")).toBe("1767225601.123456789");
    expect(engineSince("2026-01-01T00:00:01.5Z")).toBe("1767225601.500000000");
  });
});
