import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ContainerCreateOptions } from "dockerode";
import type { ManagedContainer } from "@levelrail/docker";
import { Labels, serviceLabels } from "@levelrail/spec/naming";
import {
  CappedOutput,
  type HookOutcome,
  type HookPhase,
  type HookRecorder,
  type HookRun,
  type HookRuntime,
  MAX_OUTPUT_BYTES,
  TRUNCATED_MARKER,
  preDeployContainer,
  runPostDeploy,
  runPreDeploy,
} from "./hooks";

const NOW = new Date("2026-03-01T12:00:00Z").getTime();
const NETWORK = "lrt-app-app-1";
const IMAGE_ID = "sha256:1111111111111111111111111111111111111111111111111111111111111111";

type Call = [method: string, ...args: unknown[]];

/** How the process of a hook behaves: its output, then its exit code (or it never ends on its own). */
interface Script {
  chunks: string[];
  exit: number | "hangs";
}

/**
 * The few engine calls hooks make, in memory. A hook container runs its script
 * when started; removing it ends its wait and its log stream, as on the engine.
 */
class FakeRuntime implements HookRuntime {
  readonly calls: Call[] = [];
  readonly containers = new Map<string, ManagedContainer>();
  /** What the next started container (or exec) does. */
  script: Script = { chunks: ["migrating\n", "done\n"], exit: 0 };
  /** An error the next waitExit throws, as an engine whose connection drops would. */
  waitError: Error | null = null;
  startError: Error | null = null;
  private readonly ends = new Map<string, (code: number) => void>();

  add(c: Partial<ManagedContainer> & { name: string }): ManagedContainer {
    const full: ManagedContainer = {
      id: `id-${c.name}`,
      state: "created",
      labels: {},
      startedAt: 0,
      exitCode: null,
      createdAt: NOW,
      restartCount: 0,
      addresses: {},
      ...c,
    };
    this.containers.set(full.id, full);
    return full;
  }
  private find(nameOrId: string) {
    return this.containers.get(nameOrId) ?? [...this.containers.values()].find((c) => c.name === nameOrId);
  }

  async inspectContainer(nameOrId: string) {
    this.calls.push(["inspectContainer", nameOrId]);
    const c = this.find(nameOrId);
    return c ? { ...c } : null;
  }
  async createContainer(opts: ContainerCreateOptions) {
    this.calls.push(["createContainer", opts]);
    const name = opts.name ?? "anon";
    if (this.find(name)) return null;
    this.add({ name, labels: opts.Labels ?? {}, createdAt: Date.now() });
    return `id-${name}`;
  }
  async startContainer(id: string) {
    this.calls.push(["startContainer", id]);
    if (this.startError) throw this.startError;
    Object.assign(this.find(id)!, { state: "running", startedAt: Date.now() });
  }
  async removeContainer(id: string) {
    this.calls.push(["removeContainer", id]);
    const c = this.find(id);
    if (c) this.containers.delete(c.id);
    this.ends.get(c?.id ?? id)?.(137);
  }
  async followLogs(id: string, onChunk: (text: string) => void) {
    this.calls.push(["followLogs", id]);
    for (const chunk of this.script.chunks) onChunk(chunk);
  }
  /** Everything the container printed so far (read before a kill on timeout). */
  async containerLogs(id: string) {
    this.calls.push(["containerLogs", id]);
    return "";
  }

  async waitExit(id: string) {
    this.calls.push(["waitExit", id]);
    if (this.waitError) throw this.waitError;
    const { exit } = this.script;
    if (exit !== "hangs") return exit;
    return new Promise<number>((resolve) => this.ends.set(id, resolve));
  }
  async exec(id: string, argv: string[], onChunk: (text: string) => void) {
    this.calls.push(["exec", id, argv]);
    for (const chunk of this.script.chunks) onChunk(chunk);
    const { exit } = this.script;
    if (exit !== "hangs") return { exitCode: exit };
    return new Promise<{ exitCode: number }>((resolve) => this.ends.set(id, (exitCode) => resolve({ exitCode })));
  }
}

/** Records every call; `succeededBefore` says which phases a previous pass finished. */
class FakeRecorder implements HookRecorder {
  readonly calls: Call[] = [];
  succeededBefore = new Set<HookPhase>();
  async begin(run: { serviceId: string; releaseId: string; phase: HookPhase; command: string[]; attempt: string }) {
    this.calls.push(["begin", run]);
    return "run-1";
  }
  async progress(runId: string, output: string) {
    this.calls.push(["progress", runId, output]);
  }
  async finish(runId: string, r: { exitCode: number | null; outcome: HookOutcome; output: string; message: string }) {
    this.calls.push(["finish", runId, r]);
  }
  async succeeded(releaseId: string, phase: HookPhase) {
    this.calls.push(["succeeded", releaseId, phase]);
    return this.succeededBefore.has(phase);
  }
  /** The calls other than progress, which depends on timing. */
  steps(): Call[] {
    return this.calls.filter(([m]) => m !== "progress");
  }
}

const ARGV = ["/bin/busybox", "sh", "-c", "echo migrating; echo done"];

const serviceContainer = (): ContainerCreateOptions & { name: string } => ({
  name: "lrt-web-5d4cc820b37f",
  Image: IMAGE_ID,
  Env: ["DATABASE_URL=postgres://db/shop", "LOG_LEVEL=info"],
  Labels: { ...serviceLabels("lrt", "web", "app-1", "rel-2"), "levelrail.image": "registry.example.com/shop:1.4.2" },
  ExposedPorts: { "8080/tcp": {} },
  HostConfig: { NetworkMode: NETWORK, Dns: ["10.201.0.1"], RestartPolicy: { Name: "no" }, LogConfig: { Type: "json-file", Config: {} } },
  NetworkingConfig: { EndpointsConfig: { [NETWORK]: { Aliases: ["web"] } } },
});

const HOOK_NAME = "lrt-web-5d4cc820b37f-pre-deploy";
const HOOK_ID = `id-${HOOK_NAME}`;

const hookRun = (phase: HookPhase, over: Partial<HookRun> = {}): HookRun => ({
  serviceId: "svc-1",
  releaseId: "rel-2",
  phase,
  argv: ARGV,
  timeoutSeconds: 300,
  ...over,
});

beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ["Date", "setTimeout", "clearTimeout"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("CappedOutput", () => {
  it("keeps everything below the cap, in order", () => {
    const out = new CappedOutput();
    out.append("out 1\n");
    out.append("err 1\n");
    out.append("");
    out.append("out 2\n");
    expect(out.toString()).toBe("out 1\nerr 1\nout 2\n");
  });

  it("keeps exactly 1 MiB and appends the marker once, however much more arrives", () => {
    const out = new CappedOutput();
    const chunk = "x".repeat(64 * 1024);
    for (let i = 0; i < 40; i++) out.append(chunk); // 2.5 MiB
    out.append("the tail\n");
    const text = out.toString();
    expect(text.endsWith(TRUNCATED_MARKER)).toBe(true);
    expect(text.split(TRUNCATED_MARKER)).toHaveLength(2);
    expect(Buffer.byteLength(text.slice(0, -TRUNCATED_MARKER.length))).toBe(MAX_OUTPUT_BYTES);
    expect(text).not.toContain("the tail");
  });

  it("exactly at the cap: nothing is cut until one more byte arrives", () => {
    const out = new CappedOutput();
    out.append("a".repeat(MAX_OUTPUT_BYTES));
    expect(out.toString()).toHaveLength(MAX_OUTPUT_BYTES);
    out.append("b");
    out.append("c");
    expect(out.toString()).toBe(`${"a".repeat(MAX_OUTPUT_BYTES)}${TRUNCATED_MARKER}`);
  });

  it("never cuts a multi-byte character in half", () => {
    const out = new CappedOutput();
    out.append("a".repeat(MAX_OUTPUT_BYTES - 2));
    out.append("€uro"); // € is 3 bytes: it does not fit in the 2 left
    const text = out.toString();
    expect(text).toBe(`${"a".repeat(MAX_OUTPUT_BYTES - 2)}${TRUNCATED_MARKER}`);
    expect(text).not.toContain("\uFFFD");
    expect(Buffer.byteLength(text.slice(0, -TRUNCATED_MARKER.length))).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
  });
});

describe("preDeployContainer", () => {
  it("runs the argv exactly (no shell), in the new image with the new env on the app network, labelled as a hook", () => {
    const svc = serviceContainer();
    expect(preDeployContainer(svc, ["npm", "run", "migrate; rm -rf /"])).toStrictEqual({
      name: HOOK_NAME,
      Image: IMAGE_ID,
      Entrypoint: ["npm"],
      Cmd: ["run", "migrate; rm -rf /"],
      Env: ["DATABASE_URL=postgres://db/shop", "LOG_LEVEL=info"],
      Labels: { ...svc.Labels, [Labels.role]: "pre-deploy" },
      HostConfig: { NetworkMode: NETWORK, Dns: ["10.201.0.1"], RestartPolicy: { Name: "no" } },
    });
  });

  it("a one-element argv has no arguments (the image's CMD is not appended)", () => {
    const opts = preDeployContainer(serviceContainer(), ["/migrate"]);
    expect(opts.Entrypoint).toEqual(["/migrate"]);
    expect(opts.Cmd).toEqual([]);
  });
});

describe("runPreDeploy", () => {
  const opts = () => preDeployContainer(serviceContainer(), ARGV);

  it("creates, starts, follows and waits for the hook container, then removes it; the run is recorded with its output", async () => {
    const runtime = new FakeRuntime();
    const recorder = new FakeRecorder();
    expect(await runPreDeploy(runtime, recorder, hookRun("pre"), opts())).toEqual({ ok: true });
    expect(runtime.calls).toEqual([
      ["inspectContainer", HOOK_NAME],
      ["createContainer", opts()],
      ["inspectContainer", HOOK_NAME],
      ["startContainer", HOOK_ID],
      ["followLogs", HOOK_ID],
      ["waitExit", HOOK_ID],
      ["removeContainer", HOOK_ID],
    ]);
    expect(recorder.steps()).toEqual([
      ["succeeded", "rel-2", "pre"],
      ["begin", { serviceId: "svc-1", releaseId: "rel-2", phase: "pre", command: ARGV, attempt: HOOK_ID }],
      ["finish", "run-1", { exitCode: 0, outcome: "succeeded", output: "migrating\ndone\n", message: "" }],
    ]);
    expect(runtime.containers.size).toBe(0);
  });

  it("a non-zero exit fails, naming the hook and its exit code; the container is removed", async () => {
    const runtime = new FakeRuntime();
    const recorder = new FakeRecorder();
    runtime.script = { chunks: ["relation \"users\" already exists\n"], exit: 3 };
    const message = `pre-deploy hook ${JSON.stringify(ARGV)} failed with exit code 3`;
    expect(await runPreDeploy(runtime, recorder, hookRun("pre"), opts())).toEqual({ ok: false, message });
    expect(recorder.steps().at(-1)).toEqual([
      "finish",
      "run-1",
      { exitCode: 3, outcome: "failed", output: "relation \"users\" already exists\n", message },
    ]);
    expect(runtime.calls.at(-1)).toEqual(["removeContainer", HOOK_ID]);
    expect(runtime.containers.size).toBe(0);
  });

  it("past its timeout the hook is killed (its container removed) and recorded as timed out", async () => {
    const runtime = new FakeRuntime();
    const recorder = new FakeRecorder();
    runtime.script = { chunks: ["waiting for the lock\n"], exit: "hangs" };
    const result = runPreDeploy(runtime, recorder, hookRun("pre", { timeoutSeconds: 30 }), opts());
    await vi.advanceTimersByTimeAsync(29_999);
    expect(recorder.steps().some(([m]) => m === "finish")).toBe(false);
    expect(runtime.containers.size).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    const message = `pre-deploy hook ${JSON.stringify(ARGV)} timed out after 30s and was killed`;
    expect(await result).toEqual({ ok: false, message });
    expect(recorder.steps().at(-1)).toEqual(["finish", "run-1", { exitCode: null, outcome: "timed_out", output: "waiting for the lock\n", message }]);
    // Killed once: the removal is the kill.
    expect(runtime.calls.filter(([m]) => m === "removeContainer")).toEqual([["removeContainer", HOOK_ID]]);
    expect(runtime.containers.size).toBe(0);
  });

  it("adopts the hook container a crashed pass left running, keeps its deadline, and does not create or start another", async () => {
    const runtime = new FakeRuntime();
    const recorder = new FakeRecorder();
    runtime.add({ name: HOOK_NAME, state: "running", createdAt: NOW - 100_000, startedAt: NOW - 100_000 });
    expect(await runPreDeploy(runtime, recorder, hookRun("pre"), opts())).toEqual({ ok: true });
    expect(runtime.calls).toEqual([
      ["inspectContainer", HOOK_NAME],
      ["followLogs", HOOK_ID],
      ["waitExit", HOOK_ID],
      ["removeContainer", HOOK_ID],
    ]);
    // The same attempt as the crashed pass: the recorder resumes its row instead of adding one.
    expect(recorder.steps()[1]).toEqual(["begin", expect.objectContaining({ attempt: HOOK_ID })]);

    // The deadline counts from the container's creation, not from the adoption.
    const late = new FakeRuntime();
    late.script = { chunks: [], exit: "hangs" };
    late.add({ name: HOOK_NAME, state: "running", createdAt: NOW - 299_000 });
    const result = runPreDeploy(late, undefined, hookRun("pre"), opts());
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await result).toEqual({ ok: false, message: `pre-deploy hook ${JSON.stringify(ARGV)} timed out after 300s and was killed` });
  });

  it("adopts a hook container left in 'created' and starts it", async () => {
    const runtime = new FakeRuntime();
    runtime.add({ name: HOOK_NAME, state: "created" });
    expect(await runPreDeploy(runtime, undefined, hookRun("pre"), opts())).toEqual({ ok: true });
    expect(runtime.calls.map(([m]) => m)).toEqual(["inspectContainer", "startContainer", "followLogs", "waitExit", "removeContainer"]);
  });

  it("a hook this release already ran successfully is not run again; a container a crash left after it is removed", async () => {
    const runtime = new FakeRuntime();
    const recorder = new FakeRecorder();
    recorder.succeededBefore.add("pre");
    runtime.add({ name: HOOK_NAME, state: "exited", exitCode: 0 });
    expect(await runPreDeploy(runtime, recorder, hookRun("pre"), opts())).toEqual({ ok: true });
    expect(recorder.calls).toEqual([["succeeded", "rel-2", "pre"]]);
    expect(runtime.calls).toEqual([["removeContainer", HOOK_NAME]]);
    expect(runtime.containers.size).toBe(0);
  });

  it("with no recorder the hook still runs and still gates the deploy", async () => {
    const runtime = new FakeRuntime();
    expect(await runPreDeploy(runtime, undefined, hookRun("pre"), opts())).toEqual({ ok: true });
    expect(runtime.calls.map(([m]) => m)).toEqual(["inspectContainer", "createContainer", "inspectContainer", "startContainer", "followLogs", "waitExit", "removeContainer"]);

    const failing = new FakeRuntime();
    failing.script = { chunks: ["boom\n"], exit: 1 };
    expect(await runPreDeploy(failing, undefined, hookRun("pre"), opts())).toEqual({
      ok: false,
      message: `pre-deploy hook ${JSON.stringify(ARGV)} failed with exit code 1`,
    });
    expect(failing.calls.filter(([m]) => m === "startContainer")).toHaveLength(1);

    const hanging = new FakeRuntime();
    hanging.script = { chunks: [], exit: "hangs" };
    const result = runPreDeploy(hanging, undefined, hookRun("pre", { timeoutSeconds: 5 }), opts());
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await result).toEqual({ ok: false, message: `pre-deploy hook ${JSON.stringify(ARGV)} timed out after 5s and was killed` });
    expect(hanging.containers.size).toBe(0);
  });

  it("a hook the engine cannot start (argv[0] not in the image) is an error, recorded, and its container removed", async () => {
    const runtime = new FakeRuntime();
    const recorder = new FakeRecorder();
    runtime.startError = new Error('exec: "/nope": stat /nope: no such file or directory');
    const run = hookRun("pre", { argv: ["/nope"] });
    const o = preDeployContainer(serviceContainer(), ["/nope"]);
    const message = `pre-deploy hook ["/nope"] could not run: exec: "/nope": stat /nope: no such file or directory`;
    expect(await runPreDeploy(runtime, recorder, run, o)).toEqual({ ok: false, message });
    expect(recorder.steps().at(-1)).toEqual(["finish", "run-1", { exitCode: null, outcome: "error", output: "", message }]);
    expect(runtime.calls.filter(([m]) => m === "removeContainer")).toEqual([["removeContainer", HOOK_ID]]);
    expect(runtime.containers.size).toBe(0);
  });

  it("an engine error while waiting is thrown and leaves the container and the unfinished run for the next pass to resume", async () => {
    const runtime = new FakeRuntime();
    const recorder = new FakeRecorder();
    runtime.waitError = new Error("socket hang up");
    await expect(runPreDeploy(runtime, recorder, hookRun("pre"), opts())).rejects.toThrow("socket hang up");
    expect(runtime.calls.some(([m]) => m === "removeContainer")).toBe(false);
    expect(runtime.containers.get(HOOK_ID)?.state).toBe("running");
    expect(recorder.steps().map(([m]) => m)).toEqual(["succeeded", "begin"]);

    // The next pass adopts it: started once in all.
    runtime.waitError = null;
    expect(await runPreDeploy(runtime, recorder, hookRun("pre"), opts())).toEqual({ ok: true });
    expect(runtime.calls.filter(([m]) => m === "createContainer" || m === "startContainer")).toEqual([
      ["createContainer", opts()],
      ["startContainer", HOOK_ID],
    ]);
    expect(recorder.steps().filter(([m]) => m === "begin").map(([, r]) => (r as { attempt: string }).attempt)).toEqual([HOOK_ID, HOOK_ID]);
    expect(runtime.containers.size).toBe(0);
  });

  it("streams progress while the hook runs, at most every 500 ms", async () => {
    const runtime = new FakeRuntime();
    const recorder = new FakeRecorder();
    let emit: (text: string) => void = () => {};
    let exit: (code: number) => void = () => {};
    runtime.followLogs = async (id, onChunk) => {
      runtime.calls.push(["followLogs", id]);
      emit = onChunk;
    };
    runtime.waitExit = (id) => (runtime.calls.push(["waitExit", id]), new Promise((r) => (exit = r)));
    const result = runPreDeploy(runtime, recorder, hookRun("pre"), opts());
    await vi.advanceTimersByTimeAsync(0);
    emit("step 1\n");
    emit("step 2\n"); // within 500 ms of the last progress: kept for later
    await vi.advanceTimersByTimeAsync(600);
    emit("step 3\n");
    exit(0);
    expect(await result).toEqual({ ok: true });
    expect(recorder.calls.filter(([m]) => m === "progress")).toEqual([
      ["progress", "run-1", "step 1\n"],
      ["progress", "run-1", "step 1\nstep 2\nstep 3\n"],
    ]);
    expect(recorder.calls.at(-1)).toEqual(["finish", "run-1", expect.objectContaining({ output: "step 1\nstep 2\nstep 3\n" })]);
  });
});

describe("runPostDeploy", () => {
  const container = (): ManagedContainer => ({
    id: "0123456789abcdef0123456789abcdef",
    name: "lrt-web-5d4cc820b37f",
    state: "running",
    labels: {},
    startedAt: NOW,
    exitCode: null,
    createdAt: NOW,
    restartCount: 0,
    addresses: { [NETWORK]: "172.18.0.9" },
  });

  it("execs the argv inside the new container and records the run", async () => {
    const runtime = new FakeRuntime();
    const recorder = new FakeRecorder();
    runtime.script = { chunks: ["smoke ok\n"], exit: 0 };
    const argv = ["/bin/busybox", "wget", "-q", "-O-", "http://127.0.0.1:8080/healthz"];
    expect(await runPostDeploy(runtime, recorder, hookRun("post", { argv }), container())).toEqual({ ok: true });
    expect(runtime.calls).toEqual([["exec", container().id, argv]]);
    expect(recorder.steps()).toEqual([
      ["succeeded", "rel-2", "post"],
      ["begin", { serviceId: "svc-1", releaseId: "rel-2", phase: "post", command: argv, attempt: `exec-0123456789ab-${NOW}` }],
      ["finish", "run-1", { exitCode: 0, outcome: "succeeded", output: "smoke ok\n", message: "" }],
    ]);
  });

  it("a non-zero exit is not ok and names the hook and its code; the caller removes the container", async () => {
    const runtime = new FakeRuntime();
    runtime.script = { chunks: ["smoke failed\n"], exit: 2 };
    const message = `post-deploy hook ${JSON.stringify(ARGV)} failed with exit code 2`;
    expect(await runPostDeploy(runtime, undefined, hookRun("post"), container())).toEqual({ ok: false, message });
    expect(runtime.calls).toEqual([["exec", container().id, ARGV]]);
  });

  it("past its timeout the new container is removed and the run recorded as timed out", async () => {
    const runtime = new FakeRuntime();
    const recorder = new FakeRecorder();
    runtime.script = { chunks: [], exit: "hangs" };
    const result = runPostDeploy(runtime, recorder, hookRun("post", { timeoutSeconds: 10 }), container());
    await vi.advanceTimersByTimeAsync(10_000);
    const message = `post-deploy hook ${JSON.stringify(ARGV)} timed out after 10s and was killed`;
    expect(await result).toEqual({ ok: false, message });
    expect(runtime.calls).toEqual([
      ["exec", container().id, ARGV],
      ["removeContainer", container().id],
    ]);
    expect(recorder.steps().at(-1)).toEqual(["finish", "run-1", { exitCode: null, outcome: "timed_out", output: "", message }]);
  });

  it("an engine error during the exec is thrown (the runner retries); the new container is not removed and the run not finished", async () => {
    const runtime = new FakeRuntime();
    const recorder = new FakeRecorder();
    runtime.exec = async (id, argv) => {
      runtime.calls.push(["exec", id, argv]);
      throw new Error("connect ECONNREFUSED /var/run/docker.sock");
    };
    await expect(runPostDeploy(runtime, recorder, hookRun("post"), container())).rejects.toThrow("ECONNREFUSED");
    expect(runtime.calls).toEqual([["exec", container().id, ARGV]]);
    expect(recorder.steps().map(([m]) => m)).toEqual(["succeeded", "begin"]);
  });

  it("a post-deploy hook this release already ran successfully is not run again", async () => {
    const runtime = new FakeRuntime();
    const recorder = new FakeRecorder();
    recorder.succeededBefore.add("post");
    expect(await runPostDeploy(runtime, recorder, hookRun("post"), container())).toEqual({ ok: true });
    expect(runtime.calls).toEqual([]);
  });
});
