import type { ContainerCreateOptions } from "dockerode";
import type { ManagedContainer, Runtime } from "@levelrail/docker";
import { Labels, Roles, carriesLabels, preDeployName } from "@levelrail/spec/naming";

export type HookPhase = "pre" | "post";
export type HookOutcome = "succeeded" | "failed" | "timed_out" | "error";

/** Where hook runs are kept. Optional: without one, hooks still run and gate the deploy. */
export interface HookRecorder {
  /** Starts (or resumes, for the same attempt) a run; other unfinished runs of this service are marked interrupted. */
  begin(run: { serviceId: string; releaseId: string; phase: HookPhase; command: string[]; attempt: string }): Promise<string>;
  progress(runId: string, output: string): Promise<void>;
  finish(runId: string, r: { exitCode: number | null; outcome: HookOutcome; output: string; message: string }): Promise<void>;
  /** Whether this release's hook of this phase already succeeded (so a resumed deploy does not run it again). */
  succeeded(releaseId: string, phase: HookPhase): Promise<boolean>;
}

/** How much of a hook's output a run keeps: its last 1 MiB. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;
/** How far past the cut the kept output may start, to begin at a whole line. */
const LINE_ALIGN_BYTES = 64 * 1024;

/** What starts a kept output whose beginning was dropped. */
export const TRUNCATED_MARKER = "[levelrail: output truncated: earlier output was dropped; the last 1 MiB follows]\n";

/**
 * A hook's combined output as it streams past: only its last 1 MiB is held (memory stays flat
 * however much a hook prints), and a marker saying how much was dropped starts it when anything was.
 */
export class OutputTail {
  private readonly chunks: Buffer[] = [];
  private held = 0;
  private dropped = 0;
  /** Output before what went past was dropped elsewhere (by the engine's log rotation). */
  private before = false;

  /** A tail of `text`, which is itself only the end of a longer output when `earlierDropped`. */
  static of(text: string, earlierDropped: boolean): OutputTail {
    const t = new OutputTail();
    t.before = earlierDropped;
    t.append(text);
    return t;
  }

  /** Whether anything that went past (or before) is not kept. */
  get truncated(): boolean {
    return this.before || this.dropped > 0 || this.held > MAX_OUTPUT_BYTES;
  }

  append(chunk: string): void {
    if (chunk === "") return;
    const b = Buffer.from(chunk, "utf8");
    this.chunks.push(b);
    this.held += b.length;
    // Whole chunks leave the front while the rest still fills the cap.
    while (this.chunks.length > 1 && this.held - this.chunks[0]!.length >= MAX_OUTPUT_BYTES) {
      const first = this.chunks.shift()!;
      this.held -= first.length;
      this.dropped += first.length;
    }
  }

  /** Every byte that went past, kept or not. */
  get totalBytes(): number {
    return this.held + this.dropped;
  }

  toString(): string {
    let buf = Buffer.concat(this.chunks);
    let dropped = this.dropped;
    if (buf.length > MAX_OUTPUT_BYTES) {
      dropped += buf.length - MAX_OUTPUT_BYTES;
      buf = buf.subarray(buf.length - MAX_OUTPUT_BYTES);
    }
    if (dropped === 0) return (this.before ? TRUNCATED_MARKER : "") + buf.toString("utf8");
    // Start at a whole line where one is near: a secret cut in half at the edge would show its end,
    // which redaction cannot recognize. Else at least at a whole character.
    const nl = buf.indexOf(0x0a);
    let skip = nl >= 0 && nl < LINE_ALIGN_BYTES ? nl + 1 : 0;
    if (skip === 0) while (skip < buf.length && (buf[skip]! & 0xc0) === 0x80) skip++;
    return TRUNCATED_MARKER + buf.subarray(skip).toString("utf8");
  }
}

export interface HookRun {
  serviceId: string;
  releaseId: string;
  phase: HookPhase;
  argv: string[];
  timeoutSeconds: number;
}

export type HookResult = { ok: true } | { ok: false; message: string };

/** What running a hook needs of the engine. */
export type HookRuntime = Pick<Runtime, "inspectContainer" | "createContainer" | "startContainer" | "removeContainer" | "followLogs" | "waitExit" | "exec" | "containerLogs">;

/** The engine refused to start the hook at all (e.g. its argv[0] is not in the image): recorded as an error, not retried. */
export class HookStartError extends Error {}

export const phaseName = (p: HookPhase) => (p === "pre" ? "pre-deploy" : "post-deploy");
const describe = (argv: string[]) => JSON.stringify(argv);

/**
 * Runs a hook under a timeout while recording it; `run` resolves to an exit code, `kill` ends it on timeout.
 * Any other error (the engine or the database failing while the hook runs) is thrown without
 * finishing the run: the runner retries, and the next pass resumes or records a new attempt.
 */
export async function recorded(
  recorder: HookRecorder | undefined,
  run: HookRun,
  attempt: string,
  remainingMs: number,
  start: (onChunk: (text: string) => void) => Promise<number>,
  kill: () => Promise<void>,
  /** The whole output so far, read before a kill: the follow stream may lag behind on a busy engine. */
  snapshot?: () => Promise<string>,
): Promise<HookResult> {
  let output = new OutputTail();
  const runId = recorder ? await recorder.begin({ serviceId: run.serviceId, releaseId: run.releaseId, phase: run.phase, command: run.argv, attempt }) : null;
  let last = 0;
  let writing = false;
  /** Set once the engine's log has the last word: what the stream still delivers is in it already. */
  let settled = false;
  const onChunk = (text: string) => {
    if (settled) return;
    output.append(text);
    const now = Date.now();
    // At most one progress write in flight: a slow database does not pile up 1 MiB copies.
    if (runId && recorder && !writing && now - last > 500) {
      last = now;
      writing = true;
      void recorder
        .progress(runId, output.toString())
        .catch(() => {})
        .finally(() => (writing = false));
    }
  };
  const name = phaseName(run.phase);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), Math.max(0, remainingMs));
  });
  try {
    /**
     * The engine's own log is the last word on what the hook printed: the stream lags behind it while
     * the hook runs, and loses its end when the log rotates under it. Rotation keeps that log to a few
     * MiB, so this read is bounded too; what the stream saw but the log no longer holds was dropped before it.
     */
    const fromEngine = async () => {
      const seen = await snapshot?.().catch(() => null);
      if (!seen) return;
      output = OutputTail.of(seen, output.truncated || output.totalBytes > Buffer.byteLength(seen));
      settled = true;
    };
    const result = await Promise.race([start(onChunk), timedOut]);
    if (result === "timeout") {
      await fromEngine();
      await kill();
      const message = `${name} hook ${describe(run.argv)} timed out after ${run.timeoutSeconds}s and was killed`;
      if (runId && recorder) await recorder.finish(runId, { exitCode: null, outcome: "timed_out", output: output.toString(), message });
      return { ok: false, message };
    }
    // A small output streamed whole; a large one may have lost its end to the log's rotation.
    if (output.truncated) await fromEngine();
    const ok = result === 0;
    const message = ok ? "" : `${name} hook ${describe(run.argv)} failed with exit code ${result}`;
    if (runId && recorder) await recorder.finish(runId, { exitCode: result, outcome: ok ? "succeeded" : "failed", output: output.toString(), message });
    return ok ? { ok: true } : { ok: false, message };
  } catch (err) {
    if (!(err instanceof HookStartError)) throw err;
    const message = `${name} hook ${describe(run.argv)} could not run: ${err.message}`;
    await kill();
    if (runId && recorder) await recorder.finish(runId, { exitCode: null, outcome: "error", output: output.toString(), message });
    return { ok: false, message };
  } finally {
    clearTimeout(timer);
  }
}

/** The service container's limits and security options, which its pre-deploy hook container shares. */
const LIMIT_KEYS = ["Memory", "MemorySwap", "NanoCpus", "PidsLimit", "SecurityOpt", "CapDrop", "CapAdd"] as const;

/**
 * The one-off container a pre-deploy hook runs in: the new image, the new env, the app network and its
 * nameservers (so mesh names resolve as in the service); argv exactly, no shell.
 */
export function preDeployContainer(service: ContainerCreateOptions & { name: string }, argv: string[]): ContainerCreateOptions & { name: string } {
  const [entry, ...args] = argv;
  return {
    name: preDeployName(service.name),
    Image: service.Image,
    Entrypoint: entry === undefined ? [] : [entry],
    Cmd: args,
    Env: service.Env,
    Labels: { ...service.Labels, [Labels.role]: Roles.preDeploy },
    HostConfig: {
      NetworkMode: service.HostConfig?.NetworkMode,
      Dns: service.HostConfig?.Dns,
      // A bare `<service>` resolves in the hook as in the service (the mesh's search domain).
      DnsSearch: service.HostConfig?.DnsSearch,
      DnsOptions: service.HostConfig?.DnsOptions,
      RestartPolicy: { Name: "no" },
      // The engine keeps at most the last few MiB of a hook that prints without end (the run keeps the last 1 MiB).
      LogConfig: { Type: "json-file", Config: { "max-size": "4m", "max-file": "2" } },
      // The service's own limits and privileges: a hook is that image, that code.
      ...Object.fromEntries(LIMIT_KEYS.flatMap((k) => (service.HostConfig?.[k] === undefined ? [] : [[k, service.HostConfig[k]]]))),
    },
  };
}

/** The labels that make a container one release's pre-deploy hook container: its owner's, its release and its role. */
const HOOK_OWNER_LABELS = [Labels.managed, Labels.instance, Labels.service, Labels.app, Labels.release, Labels.role] as const;

/** Whether an inspected container is the hook container `opts` describes, by its labels. */
function isHookContainerOf(c: ManagedContainer, opts: ContainerCreateOptions): boolean {
  const want = opts.Labels ?? {};
  return HOOK_OWNER_LABELS.every((k) => want[k] !== undefined) && carriesLabels(c.labels, Object.fromEntries(HOOK_OWNER_LABELS.map((k) => [k, want[k]!])));
}

const nameTaken = (name: string) => `container name ${name} is taken by a container that is not this release's pre-deploy hook; remove it and deploy again`;

/**
 * Runs (or resumes, after a crash) the pre-deploy hook in its one-off
 * container, waits for it within the timeout, and removes the container once
 * the run has an outcome. A thrown error leaves the container for the next pass to adopt.
 */
export async function runPreDeploy(
  runtime: HookRuntime,
  recorder: HookRecorder | undefined,
  run: HookRun,
  opts: ContainerCreateOptions & { name: string },
): Promise<HookResult> {
  // Whatever has the hook container's name is adopted or removed only if its labels say it is this
  // release's hook container (a name alone proves nothing).
  const found = await runtime.inspectContainer(opts.name);
  const ours = found && isHookContainerOf(found, opts) ? found : null;
  if (recorder && (await recorder.succeeded(run.releaseId, "pre"))) {
    // A crash between recording the outcome and removing the container leaves it behind.
    if (ours) await runtime.removeContainer(ours.id);
    return { ok: true };
  }
  if (found && !ours) return { ok: false, message: nameTaken(opts.name) };
  let c: ManagedContainer | null = ours;
  if (!c) {
    await runtime.createContainer(opts);
    c = await runtime.inspectContainer(opts.name);
    if (!c) throw new Error(`hook container ${opts.name} vanished right after it was created`);
    // Another's, made in the moment between our look and our create.
    if (!isHookContainerOf(c, opts)) return { ok: false, message: nameTaken(opts.name) };
  }
  const { id, state } = c;
  const remaining = run.timeoutSeconds * 1000 - (Date.now() - c.createdAt);
  let removed = false;
  const remove = async () => {
    await runtime.removeContainer(id);
    removed = true;
  };
  // The attempt is the container: a resumed run is the same row, a new container a new one.
  const result = await recorded(
    recorder,
    run,
    id,
    remaining,
    async (onChunk) => {
      if (state === "created") {
        try {
          await runtime.startContainer(id);
        } catch (err) {
          throw new HookStartError(err instanceof Error ? err.message : String(err), { cause: err });
        }
      }
      // From the container's start: a resumed run reads its whole output again.
      const [, code] = await Promise.all([runtime.followLogs(id, onChunk), runtime.waitExit(id)]);
      return code;
    },
    remove,
    () => runtime.containerLogs(id, 100_000),
  );
  if (!removed) await remove();
  return result;
}

/** Runs the post-deploy hook inside the new container (exec, no shell); the caller removes the container on failure. */
export async function runPostDeploy(
  runtime: HookRuntime,
  recorder: HookRecorder | undefined,
  run: HookRun,
  container: ManagedContainer,
): Promise<HookResult> {
  if (recorder && (await recorder.succeeded(run.releaseId, "post"))) return { ok: true };
  return recorded(
    recorder,
    run,
    `exec-${container.id.slice(0, 12)}-${Date.now()}`,
    run.timeoutSeconds * 1000,
    async (onChunk) => (await runtime.exec(container.id, run.argv, onChunk)).exitCode,
    () => runtime.removeContainer(container.id),
  );
}
