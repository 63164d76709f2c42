import { describe, expect, it } from "vitest";
import type { Runtime } from "@levelrail/docker";
import type { Pass } from "../../reconcile/controller";
import { passRuntime, pullTimedOut } from "./pass-runtime";

/** A pass that records which work ran off the slot. */
const recordingPass = () => {
  const waited: string[] = [];
  let label = "";
  const pass: Pass = {
    async waiting(work) {
      waited.push(label);
      return work();
    },
  };
  return { pass, waited, as: (l: string) => (label = l) };
};

/** Just the calls these tests make. */
class Engine {
  readonly calls: string[] = [];
  signal: AbortSignal | undefined;
  hang = false;
  async waitExit(id: string) {
    this.calls.push(`wait ${id}`);
    return 0;
  }
  async exec(id: string) {
    this.calls.push(`exec ${id}`);
    return { exitCode: 0 };
  }
  async startContainer(id: string) {
    this.calls.push(`start ${id}`);
  }
  async pullImage(ref: string, _auth: unknown, _onProgress: unknown, signal?: AbortSignal) {
    this.calls.push(`pull ${ref}`);
    this.signal = signal;
    if (!this.hang) return;
    await new Promise<void>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason as Error)));
  }
}

describe("passRuntime", () => {
  it("waits for a hook's exit, an exec and a pull off the slot; every other call is the runtime's own", async () => {
    const engine = new Engine();
    const p = recordingPass();
    const rt = passRuntime(engine as unknown as Runtime, p.pass, 60);
    p.as("wait");
    expect(await rt.waitExit("c1")).toBe(0);
    p.as("exec");
    expect(await rt.exec("c1", ["true"], () => {})).toEqual({ exitCode: 0 });
    p.as("pull");
    await rt.pullImage("img:1", null, () => {});
    p.as("start");
    await rt.startContainer("c1");
    expect(p.waited).toEqual(["wait", "exec", "pull"]);
    expect(engine.calls).toEqual(["wait c1", "exec c1", "pull img:1", "start c1"]);
  });

  it("cancels a pull past its deadline with a message naming the deadline and the setting", async () => {
    const engine = new Engine();
    engine.hang = true;
    const rt = passRuntime(engine as unknown as Runtime, recordingPass().pass, 0.05);
    await expect(rt.pullImage("slow:1", null, () => {})).rejects.toThrow(pullTimedOut(0.05));
    expect(engine.signal?.aborted).toBe(true);
    expect(pullTimedOut(600)).toBe("no complete pull within 600s (LEVELRAIL_PULL_TIMEOUT_SECONDS); the registry is slow or stalled");
  });

  it("a pull that finishes in time leaves no deadline behind", async () => {
    const engine = new Engine();
    const rt = passRuntime(engine as unknown as Runtime, recordingPass().pass, 0.05);
    await rt.pullImage("fast:1", null, () => {});
    await new Promise((r) => setTimeout(r, 80));
    expect(engine.signal?.aborted).toBe(false);
  });
});
