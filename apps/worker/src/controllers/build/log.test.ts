import { describe, expect, it } from "vitest";
import { BuildLogWriter, MAX_LOG_LINES } from "./log";

/** The store's side of a build's log: every line appended, in order. */
function store() {
  const lines: string[] = [];
  return {
    lines,
    appendLog: async (_id: string, from: number, batch: string[]) => {
      expect(from).toBe(lines.length + 1);
      lines.push(...batch);
    },
  };
}

const PEM = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----";

describe("a build's log as it is written", () => {
  it("redacts a secret across lines, as the container logs do: a multi-line value printed by a RUN step is hidden in every line it spans (issue 42, finding 12)", async () => {
    const s = store();
    const log = new BuildLogWriter(s, "b1", [PEM, "hunter2-token"]);
    log.line("#5 [2/3] RUN cat /run/key");
    for (const l of `#5 0.101 ${PEM}`.split("\n")) log.line(l);
    log.line("#5 0.102 Authorization: Bearer hunter2-token\r");
    log.line("#5 DONE 0.1s");
    await log.close();
    const text = s.lines.join("\n");
    expect(text).not.toContain("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ");
    expect(text).not.toContain("BEGIN OPENSSH PRIVATE KEY");
    expect(text).not.toContain("hunter2-token");
    expect(s.lines).toEqual(["#5 [2/3] RUN cat /run/key", "#5 0.101 [redacted]", "[redacted]", "[redacted]", "#5 0.102 Authorization: Bearer [redacted]", "#5 DONE 0.1s"]);
  });

  it("a line that could begin a secret waits for the next line, or the hold's quiet, then goes as it is", async () => {
    const s = store();
    const log = new BuildLogWriter(s, "b2", [PEM], 50);
    log.line("#6 -----BEGIN OPENSSH PRIVATE KEY-----");
    await new Promise((r) => setTimeout(r, 400));
    expect(s.lines).toEqual(["#6 -----BEGIN OPENSSH PRIVATE KEY-----"]);
    log.line("#6 done");
    await log.close();
    expect(s.lines).toEqual(["#6 -----BEGIN OPENSSH PRIVATE KEY-----", "#6 done"]);
  });

  it("keeps at most MAX_LOG_LINES lines, then says how many were left out", async () => {
    const s = store();
    const log = new BuildLogWriter(s, "b3", ["a-secret-value"]);
    for (let i = 0; i < MAX_LOG_LINES + 5; i++) log.line(`line ${i}`);
    await log.close();
    expect(s.lines).toHaveLength(MAX_LOG_LINES + 1);
    expect(s.lines.at(-1)).toBe(`… 5 more lines left out (a build keeps ${MAX_LOG_LINES})`);
  });
});
