import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { describe, expect, it } from "vitest";
import { ExecDemuxer } from "./streams";

/** One frame of Docker's multiplexed stream: type (0 stdin, 1 stdout, 2 stderr), 3 zero bytes, length, payload. */
function frame(kind: number, payload: string | Buffer): Buffer {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
  const head = Buffer.alloc(8);
  head[0] = kind;
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body]);
}

/** Feeds `bytes` through a demuxer in pieces of `size` bytes; what came out on stdout, and the stderr tail. */
async function demux(bytes: Buffer, size: number, tailBytes?: number): Promise<{ stdout: Buffer; stderr: string }> {
  const d = new ExecDemuxer(tailBytes);
  const pieces = [];
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
  const out: Buffer[] = [];
  await pipeline(Readable.from(pieces), d, new Writable({ write: (c: Buffer, _e, done) => (out.push(c), done()) }));
  return { stdout: Buffer.concat(out), stderr: d.stderrTail() };
}

describe("ExecDemuxer", () => {
  const stream = Buffer.concat([frame(1, "hello "), frame(2, "warn\n"), frame(0, "ignored"), frame(1, Buffer.from([0, 1, 2, 255])), frame(1, ""), frame(2, "bad\n")]);

  it.each([1, 3, 7, 8, 9, 1000])("splits stdout from stderr whatever the chunk boundaries (%i-byte chunks)", async (size) => {
    expect(await demux(stream, size)).toEqual({ stdout: Buffer.concat([Buffer.from("hello "), Buffer.from([0, 1, 2, 255])]), stderr: "warn\nbad\n" });
  });

  it("keeps only the last bytes of stderr", async () => {
    const lines = Array.from({ length: 500 }, (_, i) => frame(2, `line ${i}\n`));
    const { stderr } = await demux(Buffer.concat(lines), 64, 100);
    expect(Buffer.byteLength(stderr)).toBe(100);
    expect(stderr.endsWith("line 499\n")).toBe(true);
  });

  it("fails on a stream that is not multiplexed (a TTY's)", async () => {
    await expect(demux(Buffer.from("plain text, no frames"), 100)).rejects.toThrow("not a multiplexed stream");
  });
});
