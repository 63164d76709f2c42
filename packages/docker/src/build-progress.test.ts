import { describe, expect, it } from "vitest";
import { BuildProgress } from "./build-progress";

const t = { seconds: "1", nanos: 0 };

describe("BuildProgress", () => {
  it("prints steps, their logs by number, cached steps, and names the first failing step", () => {
    const lines: string[] = [];
    const p = new BuildProgress((l) => lines.push(l));
    p.status({ vertexes: [{ digest: "a", name: "[1/3] FROM docker.io/x", cached: false, started: t, error: "" }] });
    p.status({ vertexes: [{ digest: "a", name: "[1/3] FROM docker.io/x", cached: false, started: t, completed: t, error: "" }] });
    p.status({ vertexes: [{ digest: "b", name: "[2/3] COPY . /", cached: true, started: t, completed: t, error: "" }] });
    p.status({ logs: [{ vertex: "c", msg: Buffer.from("hel") }] });
    p.status({ vertexes: [{ digest: "c", name: "[3/3] RUN make", cached: false, started: t, error: "" }], logs: [{ vertex: "c", msg: Buffer.from("lo\nwor") }] });
    p.status({ vertexes: [{ digest: "c", name: "[3/3] RUN make", cached: false, started: t, completed: t, error: "exit code: 2" }] });
    expect(lines).toEqual(["#1 [1/3] FROM docker.io/x", "#1 DONE", "#2 [2/3] COPY . /", "#2 CACHED", "#3 [3/3] RUN make", "#3 hello", "#3 wor", "#3 ERROR: exit code: 2"]);
    expect(p.failed()).toEqual({ step: "[3/3] RUN make", message: "exit code: 2" });
    expect([p.cachedSteps(), p.steps()]).toEqual([1, 2]);
  });

  it("a sibling cancelled because another step failed is not the cause", () => {
    const p = new BuildProgress(() => {});
    p.status({ vertexes: [{ digest: "a", name: "[stage 2/3] RUN slow", cached: false, completed: t, error: "context canceled" }] });
    p.status({ vertexes: [{ digest: "b", name: "[2/3] RUN false", cached: false, completed: t, error: "exit code: 1" }] });
    expect(p.failed()?.step).toBe("[2/3] RUN false");
  });
});
