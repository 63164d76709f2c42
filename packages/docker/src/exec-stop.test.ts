import type Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { ExecStoppedError, abortReason, killExec } from "./exec-stop";

/** An exec as the engine reports it (only `inspect` is used). */
const execReporting = (info: { Pid?: number; Running?: boolean; ContainerID?: string }) => ({ inspect: async () => info }) as unknown as Docker.Exec;

describe("killExec", () => {
  it("never kills a process the engine names that is not in the exec's container (here: this very process)", async () => {
    // Were the pid trusted as is, this test process would be killed.
    expect(await killExec(execReporting({ Pid: process.pid, Running: true, ContainerID: "f".repeat(64) }), "f".repeat(64))).toBe(false);
  });

  it("reports an exec that already ended as stopped, and one without a pid as not killed", async () => {
    expect(await killExec(execReporting({ Pid: 0, Running: false }), "c")).toBe(true);
    expect(await killExec(execReporting({ Pid: 0, Running: true }), "c")).toBe(false);
    expect(await killExec({ inspect: async () => Promise.reject(new Error("engine down")) } as unknown as Docker.Exec, "c")).toBe(false);
  });
});

describe("ExecStoppedError", () => {
  it("says what was stopped and why, and whether its process may live on", () => {
    expect(new ExecStoppedError("pg_isready", "its deadline passed", true).message).toBe("pg_isready was stopped: its deadline passed");
    expect(new ExecStoppedError("psql", "its deadline passed", false).message).toMatch(/^psql was stopped: its deadline passed \(the process may still run/);
    expect(abortReason(AbortSignal.abort(new Error("lost the lead")))).toBe("lost the lead");
  });
});
