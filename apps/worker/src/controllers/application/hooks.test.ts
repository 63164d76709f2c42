import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ContainerCreateOptions } from "dockerode";
import { FakeEngine } from "@levelrail/docker/fake";
import { Labels, Roles, serviceLabels } from "@levelrail/spec/naming";
import {
  OutputTail,
  TRUNCATED_MARKER,
  type HookOutcome,
  type HookPhase,
  type HookRecorder,
  type HookRun,
  MAX_OUTPUT_BYTES,
  preDeployContainer,
  runPostDeploy,
  runPreDeploy,
} from "./hooks";

const NOW = new Date("2026-03-01T12:00:00Z").getTime();
const NETWORK = "lrt-app-app-1";
const IMAGE_ID = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
const ARGV = ["/bin/busybox", "sh", "-c", "echo migrating; echo done"];
const HOOK_NAME = "lrt-web-5d4cc820b37f-pre-deploy";

interface Run {
  id: string;
  phase: HookPhase;
  command: string[];
  attempt: string;
  outcome: HookOutcome | "running";
  exitCode: number | null;
  output: string;
  message: string;
  progress: string[];
}

/** Hook runs kept in memory, as the database keeps them: a test asserts the rows. */
class Runs implements HookRecorder {
  readonly rows: Run[] = [];
  succeededBefore = new Set<HookPhase>();
  async begin(run: { phase: HookPhase; command: string[]; attempt: string }) {
    const same = this.rows.find((r) => r.attempt === run.attempt);
    if (same) return same.id;
    const id = `run-${this.rows.length + 1}`;
    this.rows.push({ id, ...run, outcome: "running", exitCode: null, output: "", message: "", progress: [] });
    return id;
  }
  async progress(runId: string, output: string) {
    this.row(runId).progress.push(output);
  }
  async finish(runId: string, r: { exitCode: number | null; outcome: HookOutcome; output: string; message: string }) {
    Object.assign(this.row(runId), r);
  }
  async succeeded(_releaseId: string, phase: HookPhase) {
    return this.succeededBefore.has(phase) || this.rows.some((r) => r.phase === phase && r.outcome === "succeeded");
  }
  private row(id: string) {
    return this.rows.find((r) => r.id === id)!;
  }
}

const serviceContainer = (): ContainerCreateOptions & { name: string } => ({
  name: "lrt-web-5d4cc820b37f",
  Image: IMAGE_ID,
  Env: ["DATABASE_URL=postgres://db/shop", "LOG_LEVEL=info"],
  Labels: { ...serviceLabels("lrt", { serviceId: "svc-1", appId: "app-1", environmentId: "env-1", releaseId: "rel-2" }, Roles.service), "levelrail.image": "registry.example.com/shop:1.4.2" },
  ExposedPorts: { "8080/tcp": {} },
  HostConfig: {
    NetworkMode: NETWORK,
    Dns: ["10.201.0.1"],
    DnsSearch: ["shop.lrt.internal"],
    DnsOptions: ["ndots:1"],
    RestartPolicy: { Name: "no" },
    LogConfig: { Type: "json-file", Config: {} },
    Memory: 128 * 1024 * 1024,
    MemorySwap: 128 * 1024 * 1024,
    PidsLimit: 100,
    SecurityOpt: ["no-new-privileges:true"],
    CapDrop: ["ALL"],
    CapAdd: ["CHOWN"],
  },
  NetworkingConfig: { EndpointsConfig: { [NETWORK]: {} } },
});

const hookRun = (phase: HookPhase, over: Partial<HookRun> = {}): HookRun => ({ serviceId: "svc-1", releaseId: "rel-2", phase, argv: ARGV, timeoutSeconds: 300, ...over });
const opts = () => preDeployContainer(serviceContainer(), ARGV);
/** The labels the hook container of `opts()` carries. */
const hookLabels = (): Record<string, string> => ({ ...opts().Labels });

let engine: FakeEngine;
let runs: Runs;
beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ["Date", "setTimeout", "clearTimeout"] });
  engine = new FakeEngine();
  engine.addNetwork({ name: NETWORK, subnet: "10.201.0.0/26", gateway: "10.201.0.1" });
  runs = new Runs();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("OutputTail", () => {
  const MARKER = /^\[levelrail: output truncated: earlier output was dropped; the last 1 MiB follows\]\n/;

  it("keeps everything below the cap, in order, without a marker", () => {
    const out = new OutputTail();
    for (const c of ["out 1\n", "err 1\n", "", "out 2\n"]) out.append(c);
    expect(out.toString()).toBe("out 1\nerr 1\nout 2\n");
  });

  it("exactly at the cap nothing is dropped", () => {
    const out = new OutputTail();
    out.append("a".repeat(MAX_OUTPUT_BYTES));
    expect(out.toString()).toBe("a".repeat(MAX_OUTPUT_BYTES));
  });

  it("keeps the last 1 MiB of far more, from a whole line, after a marker with the bytes dropped", () => {
    const out = new OutputTail();
    const line = `${"x".repeat(99)}\n`; // 100 bytes
    for (let i = 0; i < 30_000; i++) out.append(line); // 3,000,000 bytes
    out.append("the tail\n");
    const text = out.toString();
    expect(text).toMatch(MARKER);
    const kept = text.replace(MARKER, "");
    expect(kept.endsWith(`${line}the tail\n`)).toBe(true);
    expect(kept.startsWith(line)).toBe(true);
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
    expect(Buffer.byteLength(kept)).toBeGreaterThan(MAX_OUTPUT_BYTES - line.length);
    expect(out.totalBytes).toBe(3_000_009);
  });

  it("holds about 1 MiB whatever passes through", () => {
    const out = new OutputTail();
    for (let i = 0; i < 2000; i++) out.append("y".repeat(16 * 1024)); // 32 MiB
    expect(out.totalBytes).toBe(2000 * 16 * 1024);
    expect(Buffer.byteLength(out.toString().replace(MARKER, ""))).toBe(MAX_OUTPUT_BYTES);
  });

  it("one long line: cut at a whole character, never half of one", () => {
    const out = new OutputTail();
    out.append("€".repeat(MAX_OUTPUT_BYTES)); // 3 bytes each, no newline
    const kept = out.toString().replace(MARKER, "");
    expect(kept).toMatch(/^€+$/);
    expect(Buffer.byteLength(kept)).toBe(MAX_OUTPUT_BYTES - 1); // 1 MiB is not a multiple of 3: the partial € goes
  });
});

describe("OutputTail.of", () => {
  it("marks a text that is only the end of a longer output, even when it is short", () => {
    expect(OutputTail.of("last words\n", true).toString()).toBe(`${TRUNCATED_MARKER}last words\n`);
    expect(OutputTail.of("all of it\n", false).toString()).toBe("all of it\n");
  });
});

describe("preDeployContainer", () => {
  it("runs the argv exactly (no shell), in the new image with the new env on the app network and its mesh names, labelled as a hook", () => {
    const svc = serviceContainer();
    expect(preDeployContainer(svc, ["npm", "run", "migrate; rm -rf /"])).toStrictEqual({
      name: HOOK_NAME,
      Image: IMAGE_ID,
      Entrypoint: ["npm"],
      Cmd: ["run", "migrate; rm -rf /"],
      Env: ["DATABASE_URL=postgres://db/shop", "LOG_LEVEL=info"],
      Labels: { ...svc.Labels, [Labels.role]: "pre-deploy" },
      HostConfig: {
        NetworkMode: NETWORK,
        Dns: ["10.201.0.1"],
        DnsSearch: ["shop.lrt.internal"],
        DnsOptions: ["ndots:1"],
        RestartPolicy: { Name: "no" },
        // Its own log rotation; the service's limits and privileges (a hook is that image's code).
        LogConfig: { Type: "json-file", Config: { "max-size": "4m", "max-file": "2" } },
        Memory: 128 * 1024 * 1024,
        MemorySwap: 128 * 1024 * 1024,
        PidsLimit: 100,
        SecurityOpt: ["no-new-privileges:true"],
        CapDrop: ["ALL"],
        CapAdd: ["CHOWN"],
      },
    });
  });

  it("a one-element argv has no arguments (the image's CMD is not appended)", () => {
    const o = preDeployContainer(serviceContainer(), ["/migrate"]);
    expect([o.Entrypoint, o.Cmd]).toEqual([["/migrate"], []]);
  });
});

describe("runPreDeploy", () => {
  it("runs the hook in its one-off container, records the run with its output, and leaves no container", async () => {
    engine.script = () => ({ chunks: ["migrating\n", "done\n"], exit: 0 });
    expect(await runPreDeploy(engine, runs, hookRun("pre"), opts())).toEqual({ ok: true });
    expect(engine.containers.size).toBe(0);
    expect(engine.calls).toEqual([`create ${HOOK_NAME}`, `start ${HOOK_NAME}`, `remove ${HOOK_NAME}`]);
    expect(runs.rows).toEqual([expect.objectContaining({ phase: "pre", command: ARGV, attempt: `id-${HOOK_NAME}`, outcome: "succeeded", exitCode: 0, output: "migrating\ndone\n", message: "" })]);
  });

  it("a non-zero exit fails, naming the hook and its exit code; the container is removed", async () => {
    engine.script = () => ({ chunks: ['relation "users" already exists\n'], exit: 3 });
    const message = `pre-deploy hook ${JSON.stringify(ARGV)} failed with exit code 3`;
    expect(await runPreDeploy(engine, runs, hookRun("pre"), opts())).toEqual({ ok: false, message });
    expect(runs.rows[0]).toMatchObject({ outcome: "failed", exitCode: 3, output: 'relation "users" already exists\n', message });
    expect(engine.containers.size).toBe(0);
  });

  it("past its timeout the hook is killed (its container removed) and recorded as timed out", async () => {
    engine.script = () => ({ chunks: ["waiting for the lock\n"], exit: "runs" });
    const result = runPreDeploy(engine, runs, hookRun("pre", { timeoutSeconds: 30 }), opts());
    await vi.advanceTimersByTimeAsync(29_999);
    expect(runs.rows[0]?.outcome).toBe("running");
    expect(engine.containers.size).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    const message = `pre-deploy hook ${JSON.stringify(ARGV)} timed out after 30s and was killed`;
    expect(await result).toEqual({ ok: false, message });
    expect(runs.rows[0]).toMatchObject({ outcome: "timed_out", exitCode: null, output: "waiting for the lock\n", message });
    expect(engine.containers.size).toBe(0);
    expect(engine.calls.filter((c) => c.startsWith("remove"))).toHaveLength(1); // the removal is the kill
  });

  it("adopts the hook container a crashed pass left running: the same run, not started again, its deadline kept", async () => {
    engine.add({ name: HOOK_NAME, labels: hookLabels(), state: "running", createdAt: NOW - 100_000, startedAt: NOW - 100_000, output: "migrating\n" });
    await runs.begin({ phase: "pre", command: ARGV, attempt: `id-${HOOK_NAME}` });
    const result = runPreDeploy(engine, runs, hookRun("pre"), opts());
    await vi.advanceTimersByTimeAsync(0);
    engine.print(HOOK_NAME, "done\n");
    engine.exit(HOOK_NAME, 0);
    expect(await result).toEqual({ ok: true });
    expect(engine.calls).toEqual([`remove ${HOOK_NAME}`]);
    expect(runs.rows).toEqual([expect.objectContaining({ outcome: "succeeded", output: "migrating\ndone\n" })]);

    // The deadline counts from the container's creation, not from the adoption.
    engine.add({ name: HOOK_NAME, labels: hookLabels(), state: "running", createdAt: NOW - 299_000 });
    const late = runPreDeploy(engine, undefined, hookRun("pre"), opts());
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await late).toEqual({ ok: false, message: `pre-deploy hook ${JSON.stringify(ARGV)} timed out after 300s and was killed` });
  });

  it("adopts a hook container left in 'created' and starts it", async () => {
    engine.add({ name: HOOK_NAME, state: "created", labels: hookLabels() });
    expect(await runPreDeploy(engine, undefined, hookRun("pre"), opts())).toEqual({ ok: true });
    expect(engine.calls).toEqual([`start ${HOOK_NAME}`, `remove ${HOOK_NAME}`]);
  });

  it("a hook this release already ran successfully is not run again; a container a crash left after it is removed", async () => {
    runs.succeededBefore.add("pre");
    engine.add({ name: HOOK_NAME, labels: hookLabels(), state: "exited", exitCode: 0 });
    expect(await runPreDeploy(engine, runs, hookRun("pre"), opts())).toEqual({ ok: true });
    expect(engine.calls).toEqual([`remove ${HOOK_NAME}`]);
    expect(runs.rows).toEqual([]);
  });

  it.each([
    ["no labels at all", {}],
    ["another release's labels", { ...hookLabels(), [Labels.release]: "rel-1" }],
    ["another installation's labels", { ...hookLabels(), [Labels.instance]: "other" }],
    ["the service role", { ...hookLabels(), [Labels.role]: "service" }],
  ])("a container that only has the hook's name (%s) is neither adopted, started nor removed", async (_why, labels) => {
    const message = `container name ${HOOK_NAME} is taken by a container that is not this release's pre-deploy hook; remove it and deploy again`;
    engine.add({ name: HOOK_NAME, labels, state: "created" });
    expect(await runPreDeploy(engine, runs, hookRun("pre"), opts())).toEqual({ ok: false, message });
    runs.succeededBefore.add("pre");
    expect(await runPreDeploy(engine, runs, hookRun("pre"), opts())).toEqual({ ok: true });
    expect(engine.calls).toEqual([]);
    expect(engine.get(HOOK_NAME)?.state).toBe("created");
  });

  it("with no recorder the hook still runs and still gates the deploy", async () => {
    engine.script = () => ({ chunks: ["boom\n"], exit: 1 });
    expect(await runPreDeploy(engine, undefined, hookRun("pre"), opts())).toEqual({ ok: false, message: `pre-deploy hook ${JSON.stringify(ARGV)} failed with exit code 1` });
    expect(engine.containers.size).toBe(0);
  });

  it("a hook the engine cannot start (argv[0] not in the image) is an error, recorded, and its container removed", async () => {
    engine.failNextStart('exec: "/nope": stat /nope: no such file or directory');
    const message = `pre-deploy hook ["/nope"] could not run: exec: "/nope": stat /nope: no such file or directory`;
    const o = preDeployContainer(serviceContainer(), ["/nope"]);
    expect(await runPreDeploy(engine, runs, hookRun("pre", { argv: ["/nope"] }), o)).toEqual({ ok: false, message });
    expect(runs.rows[0]).toMatchObject({ outcome: "error", exitCode: null, message });
    expect(engine.containers.size).toBe(0);
  });

  it("an engine error while waiting is thrown; the container and the unfinished run are resumed by the next pass", async () => {
    engine.script = () => ({ chunks: [], exit: "runs" });
    engine.failNextWait(new Error("socket hang up"));
    await expect(runPreDeploy(engine, runs, hookRun("pre"), opts())).rejects.toThrow("socket hang up");
    expect(engine.get(HOOK_NAME)?.state).toBe("running");
    expect(runs.rows).toEqual([expect.objectContaining({ outcome: "running" })]);

    const next = runPreDeploy(engine, runs, hookRun("pre"), opts());
    await vi.advanceTimersByTimeAsync(0);
    engine.exit(HOOK_NAME, 0);
    expect(await next).toEqual({ ok: true });
    expect(engine.calls.filter((c) => c.startsWith("create") || c.startsWith("start"))).toEqual([`create ${HOOK_NAME}`, `start ${HOOK_NAME}`]);
    expect(runs.rows).toEqual([expect.objectContaining({ outcome: "succeeded", attempt: `id-${HOOK_NAME}` })]);
    expect(engine.containers.size).toBe(0);
  });

  it("streams progress while the hook runs, at most every 500 ms", async () => {
    engine.script = () => ({ chunks: [], exit: "runs" });
    const result = runPreDeploy(engine, runs, hookRun("pre"), opts());
    await vi.advanceTimersByTimeAsync(0);
    engine.print(HOOK_NAME, "step 1\n");
    engine.print(HOOK_NAME, "step 2\n"); // within 500 ms of the last progress: kept for later
    await vi.advanceTimersByTimeAsync(600);
    engine.print(HOOK_NAME, "step 3\n");
    engine.exit(HOOK_NAME, 0);
    expect(await result).toEqual({ ok: true });
    expect(runs.rows[0]).toMatchObject({ progress: ["step 1\n", "step 1\nstep 2\nstep 3\n"], output: "step 1\nstep 2\nstep 3\n" });
  });
});

describe("runPostDeploy", () => {
  const target = async () => {
    engine.add({ name: "lrt-web-5d4cc820b37f", id: "0123456789abcdef0123456789abcdef", options: serviceContainer() });
    await engine.startContainer("0123456789abcdef0123456789abcdef");
    return (await engine.inspectContainer("lrt-web-5d4cc820b37f"))!;
  };

  it("execs the argv inside the new container and records the run", async () => {
    const c = await target();
    engine.execScript = () => ({ chunks: ["smoke ok\n"], exit: 0 });
    const argv = ["/bin/busybox", "wget", "-q", "-O-", "http://127.0.0.1:8080/healthz"];
    expect(await runPostDeploy(engine, runs, hookRun("post", { argv }), c)).toEqual({ ok: true });
    expect(engine.calls.at(-1)).toBe(`exec ${c.name}`);
    expect(runs.rows).toEqual([expect.objectContaining({ phase: "post", command: argv, attempt: `exec-0123456789ab-${NOW}`, outcome: "succeeded", output: "smoke ok\n" })]);
  });

  it("a non-zero exit is not ok and names the hook and its code; the container is left to the caller", async () => {
    const c = await target();
    engine.execScript = () => ({ chunks: ["smoke failed\n"], exit: 2 });
    expect(await runPostDeploy(engine, undefined, hookRun("post"), c)).toEqual({ ok: false, message: `post-deploy hook ${JSON.stringify(ARGV)} failed with exit code 2` });
    expect(engine.get(c.id)?.state).toBe("running");
  });

  it("past its timeout the new container is removed and the run recorded as timed out", async () => {
    const c = await target();
    engine.execScript = () => ({ chunks: [], exit: "runs" });
    const result = runPostDeploy(engine, runs, hookRun("post", { timeoutSeconds: 10 }), c);
    await vi.advanceTimersByTimeAsync(10_000);
    const message = `post-deploy hook ${JSON.stringify(ARGV)} timed out after 10s and was killed`;
    expect(await result).toEqual({ ok: false, message });
    expect(engine.get(c.id)).toBeUndefined();
    expect(runs.rows[0]).toMatchObject({ outcome: "timed_out", exitCode: null, message });
  });

  it("an engine error during the exec is thrown (the runner retries); the container stays and the run is unfinished", async () => {
    const c = await target();
    engine.exec = async () => {
      throw new Error("connect ECONNREFUSED /var/run/docker.sock");
    };
    await expect(runPostDeploy(engine, runs, hookRun("post"), c)).rejects.toThrow("ECONNREFUSED");
    expect(engine.get(c.id)?.state).toBe("running");
    expect(runs.rows).toEqual([expect.objectContaining({ outcome: "running" })]);
  });

  it("a post-deploy hook this release already ran successfully is not run again", async () => {
    const c = await target();
    runs.succeededBefore.add("post");
    expect(await runPostDeploy(engine, runs, hookRun("post"), c)).toEqual({ ok: true });
    expect(engine.calls.some((x) => x.startsWith("exec"))).toBe(false);
  });
});
