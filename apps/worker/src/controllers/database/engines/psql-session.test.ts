import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { ExecStreamOptions } from "@levelrail/docker";
import type { OutputStream } from "../ports";
import { PsqlSession } from "./psql-session";

/**
 * A psql of a tenant's image that never answers as psql does: it prints without end (`yes`), or
 * says nothing at all. The engine's stream is faked as the real one behaves: stopping the exec
 * (its `signal`) errors its output and rejects `done` with the reason.
 */
function tenantPsql(kind: "prints-forever" | "silent") {
  let produced = 0;
  let stopped: string | null = null;
  const execStream = async (_id: string, _argv: string[], opts: ExecStreamOptions): Promise<OutputStream> => {
    const line = Buffer.from("y".repeat(1023) + "\n");
    const stdout = new Readable({
      read() {
        if (kind === "silent") return;
        produced += line.length;
        this.push(line);
      },
    });
    const done = new Promise<{ exitCode: number; stderrTail: string }>((_, reject) => {
      const stop = () => {
        stopped = String((opts.signal?.reason as Error).message);
        stdout.destroy();
        reject(new Error(`psql was stopped: ${stopped}`));
      };
      opts.signal?.addEventListener("abort", stop, { once: true });
    });
    done.catch(() => {});
    return { stdout, done };
  };
  return { runtime: { execStream }, produced: () => produced, stopped: () => stopped };
}

const open = (runtime: ReturnType<typeof tenantPsql>["runtime"], limits: Parameters<typeof PsqlSession.open>[5]) =>
  PsqlSession.open(runtime, "c", ["psql"], [], (t) => t, limits);

describe("PsqlSession against a psql that does not behave", () => {
  it("stops a psql that prints without end once its answer passes the cap, holding no more than the cap", async () => {
    const psql = tenantPsql("prints-forever");
    const heapBefore = process.memoryUsage().heapUsed;
    const session = await open(psql.runtime, { maxAnswerBytes: 4 * 1024 * 1024, answerMs: 60_000 });
    const err = await session.run("SELECT 1;").then(() => null, (e: Error) => e);
    expect(err?.message).toMatch(/psql was stopped: psql printed more than 4 MiB without ending its answer; the output was truncated/);
    expect(psql.stopped()).toMatch(/truncated/);
    // It read a little past the cap (one chunk), not on and on.
    expect(psql.produced()).toBeLessThan(6 * 1024 * 1024);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
  });

  it("stops a psql that never answers at its deadline", async () => {
    const psql = tenantPsql("silent");
    const session = await open(psql.runtime, { answerMs: 200 });
    const started = Date.now();
    await expect(session.run("SELECT 1;")).rejects.toThrow("psql was stopped: psql gave no answer within 0 s");
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("stops at once when its signal aborts (the worker lost the lead)", async () => {
    const psql = tenantPsql("silent");
    const lead = new AbortController();
    const session = await open(psql.runtime, { signal: lead.signal, answerMs: 60_000 });
    const answer = session.run("SELECT 1;");
    lead.abort(new Error("this worker lost the leader lock"));
    await expect(answer).rejects.toThrow("psql was stopped: this worker lost the leader lock");
  });
});
