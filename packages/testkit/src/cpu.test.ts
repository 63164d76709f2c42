import { describe, expect, it } from "vitest";
import { cpuSpent, parseStat } from "./cpu";

const stat = (pid: number, comm: string, utime: number, stime: number, cutime = 0, cstime = 0) =>
  `${pid} (${comm}) S 1 ${pid} ${pid} 0 -1 4194560 100 0 0 0 ${utime} ${stime} ${cutime} ${cstime} 20 0 12 0 100 1000000 500`;

describe("parseStat", () => {
  it("reads the name and the CPU time of the process and its reaped children, in ms", () => {
    expect(parseStat(stat(42, "dockerd", 120, 30, 5, 5))).toEqual({ name: "dockerd", ms: 1600 });
  });

  it("keeps a name with spaces and parentheses whole", () => {
    expect(parseStat(stat(7, "a (b) c", 1, 2))).toEqual({ name: "a (b) c", ms: 30 });
  });

  it("refuses a line without a name", () => {
    expect(parseStat("garbage")).toBeNull();
  });
});

describe("cpuSpent", () => {
  const reading = (rows: [number, string, number][]) => ({ byPid: new Map(rows.map(([pid, name, ms]) => [pid, { name, ms }])) });

  it("sums what each name spent between two readings, largest first, leaving out processes not alive at both", () => {
    const before = reading([[1, "dockerd", 1000], [2, "postgres", 50], [3, "postgres", 70], [4, "gone", 10]]);
    const after = reading([[1, "dockerd", 1900], [2, "postgres", 150], [3, "postgres", 120], [5, "new", 999]]);
    expect(cpuSpent(before, after)).toEqual([["dockerd", 900], ["postgres", 150]]);
  });

  it("groups by a label of the caller's and drops groups that spent nothing", () => {
    const before = reading([[1, "node", 0], [2, "node", 0], [3, "caddy", 5]]);
    const after = reading([[1, "node", 40], [2, "node", 60], [3, "caddy", 5]]);
    expect(cpuSpent(before, after, (pid, name) => (pid === 1 ? "bench" : name))).toEqual([["node", 60], ["bench", 40]]);
  });

  it("does not count a pid reused by another process", () => {
    expect(cpuSpent(reading([[9, "runc", 5]]), reading([[9, "iptables", 30]]))).toEqual([]);
  });
});
