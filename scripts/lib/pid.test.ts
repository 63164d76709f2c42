import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { pidRecord, processStart, recordedPid } from "./util.mjs";

describe("pid files that survive a crash or a reboot", () => {
  it("record the pid and when the process started, and name that process while it runs", () => {
    const text = pidRecord();
    expect(text).toBe(`${process.pid} ${processStart(process.pid)}\n`);
    expect(recordedPid(text)).toBe(process.pid);
  });

  it("do not name a process that took the pid after the writer died (another start time)", () => {
    expect(recordedPid(`${process.pid} 1\n`)).toBeNull();
  });

  it("name a live pid written by an earlier version (no start time), and nothing for a pid that is gone", () => {
    expect(recordedPid(`${process.pid}\n`)).toBe(process.pid);
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid;
    expect(recordedPid(`${gone} ${processStart(process.pid)}\n`)).toBeNull();
    expect(recordedPid("garbage")).toBeNull();
  });
});
