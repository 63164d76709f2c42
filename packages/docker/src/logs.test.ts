import { describe, expect, it } from "vitest";
import { type LogLine, MAX_LINE_CHARS, SWARM_SERVICE_PREFIX, engineSince, fixedTime, framesToLines, inTimeOrder, serviceLogContainer } from "./logs";

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

describe("a swarm service's logs", () => {
  const at = (n: number) => `2026-12-03T10:00:0${n}.000000000Z`;
  const line = (n: number, text: string): LogLine => ({ stream: "stdout", at: at(n), line: text });

  it("lines of several tasks, arriving out of order within the hold, come out in time order; a task's own keep theirs", async () => {
    async function* arriving() {
      yield line(2, "a2");
      yield line(1, "b1");
      yield line(3, "a3");
      yield line(3, "b3");
      await new Promise((r) => setTimeout(r, 60));
      yield line(4, "a4");
    }
    const out: string[] = [];
    for await (const l of inTimeOrder(arriving(), 30)) out.push(l.line);
    expect(out).toEqual(["b1", "a2", "a3", "b3", "a4"]);
  });

  it("a held line is let go once its wait is over, while the stream stays open (a follower sees it without a next line)", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    async function* slow() {
      yield line(1, "first");
      await gate;
      yield line(2, "second");
    }
    const it = inTimeOrder(slow(), 20);
    const started = Date.now();
    expect((await it.next()).value?.line).toBe("first");
    expect(Date.now() - started).toBeLessThan(1_000);
    release();
    expect((await it.next()).value?.line).toBe("second");
    expect((await it.next()).done).toBe(true);
  });

  it("is listed as one container named as the service, its state and status from its tasks", () => {
    const svc = { ID: "s1", CreatedAt: "2026-12-03T10:00:00Z", Spec: { Name: "lr-web-abc", Labels: { "levelrail.role": "service" } } };
    const running = (state: string) => ({ DesiredState: "running", Status: { State: state } });
    expect(serviceLogContainer(svc, [running("running"), running("starting"), { DesiredState: "shutdown", Status: { State: "shutdown" } }])).toEqual({
      id: `${SWARM_SERVICE_PREFIX}s1`, name: "lr-web-abc", state: "running", status: "1 of 2 tasks running", labels: { "levelrail.role": "service" }, createdAt: Date.parse("2026-12-03T10:00:00Z"),
    });
    expect(serviceLogContainer(svc, [{ DesiredState: "complete", Status: { State: "complete" } }])).toMatchObject({ state: "exited", status: "Completed" });
    expect(serviceLogContainer(svc, [])).toMatchObject({ state: "exited", status: "0 of 0 tasks running" });
  });
});
