import { PassThrough, type Readable } from "node:stream";
import type { FakeContainer, FakeNetwork } from "./fake";
import type { ContainerSummary, ManagedContainer, NetworkInfo, VolumeInfo } from "./index";
import { ExecStoppedError, abortReason } from "./exec-stop";
import type { OutputStream } from "./streams";

/** What an exec does in the fake engine: prints `chunks`, writes `stderr`, then exits with `exit`, or keeps running. */
export interface ExecScript {
  chunks: (string | Buffer)[];
  /** An exit code, or `"runs"`: it keeps running until its container ends. */
  exit: number | "runs";
  /** What it wrote to stderr (the `stderrTail` of `execStream`). */
  stderr?: string;
}

/**
 * An `execStream` of the fake engine: reads all of `stdin` first (a failing input fails `done`
 * with its error, as the real one does), then runs the script on what it read.
 */
export function scriptedStream(stdin: Readable | undefined, run: (stdin: Buffer | undefined) => ExecScript, untilEnd: () => Promise<number>): OutputStream {
  const stdout = new PassThrough();
  const done = (async () => {
    try {
      const input = stdin ? await readAll(stdin) : undefined;
      const script = run(input);
      for (const chunk of script.chunks) stdout.write(chunk);
      stdout.end();
      return { exitCode: script.exit === "runs" ? await untilEnd() : script.exit, stderrTail: script.stderr ?? "" };
    } finally {
      if (!stdout.writableEnded) stdout.end();
    }
  })();
  done.catch(() => {});
  return { stdout, done };
}

/** Rejects with an `ExecStoppedError` once `signal` aborts, as a stopped exec of the real engine does. */
export function stopped(argv: string[], signal: AbortSignal): Promise<never> {
  const p = new Promise<never>((_, reject) => {
    const stop = () => reject(new ExecStoppedError(argv[0] ?? "exec", abortReason(signal), true));
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
  p.catch(() => {});
  return p;
}

/** `out`, stopped once `signal` aborts: its stdout errors and `done` rejects with an `ExecStoppedError`. */
export function stoppable(out: OutputStream, argv: string[], signal: AbortSignal): OutputStream {
  const stop = stopped(argv, signal);
  stop.catch((err: Error) => out.stdout.destroy(err));
  const done = Promise.race([out.done, stop]);
  done.catch(() => {});
  return { stdout: out.stdout, done };
}

async function readAll(input: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks);
}

/** The fake engine's named volumes. `userOf` names the container mounting one (removal is refused then), or null. */
export class FakeVolumes {
  private readonly byName = new Map<string, VolumeInfo>();

  constructor(private readonly userOf: (name: string) => string | null) {}

  /** A name it has already answers with that volume as it is, as the engine does. */
  async create(name: string, labels: Record<string, string>): Promise<VolumeInfo> {
    if (!this.byName.has(name)) this.byName.set(name, { name, labels: { ...labels } });
    return this.copy(name)!;
  }

  async inspect(name: string): Promise<VolumeInfo | null> {
    return this.copy(name);
  }

  async list(labelFilters: string[]): Promise<VolumeInfo[]> {
    return [...this.byName.keys()].map((n) => this.copy(n)!).filter((v) => matches(v.labels, labelFilters));
  }

  async remove(name: string): Promise<void> {
    const user = this.byName.has(name) ? this.userOf(name) : null;
    if (user !== null) throw Object.assign(new Error(`remove ${name}: volume is in use - [${user}]`), { statusCode: 409 });
    this.byName.delete(name);
  }

  /** Whether it exists (for tests). */
  has(name: string): boolean {
    return this.byName.has(name);
  }

  private copy(name: string): VolumeInfo | null {
    const v = this.byName.get(name);
    return v ? { name: v.name, labels: { ...v.labels } } : null;
  }
}

/** `key=value` or bare `key` filters, all of which must hold (Docker's label filter). */
export function matches(labels: Record<string, string>, filters: string[]): boolean {
  return filters.every((f) => {
    const eq = f.indexOf("=");
    return eq < 0 ? f in labels : labels[f.slice(0, eq)] === f.slice(eq + 1);
  });
}

export function snapshot(c: FakeContainer): ManagedContainer {
  return {
    id: c.id,
    name: c.name,
    state: c.state,
    labels: { ...c.labels },
    startedAt: c.startedAt,
    finishedAt: c.finishedAt,
    exitCode: c.state === "exited" || c.state === "dead" || c.state === "restarting" || c.restartCount > 0 ? c.exitCode : null,
    createdAt: c.createdAt,
    restartCount: c.restartCount,
    restartPolicy: c.restartPolicy,
    addresses: { ...c.addresses },
  };
}

/** What the engine's list shows: its status text without the durations (`Up`, `Exited (1)`). */
export function summary(c: FakeContainer): ContainerSummary {
  const code = c.exitCode ?? 0;
  const status = { created: "Created", running: "Up", paused: "Up (Paused)", restarting: `Restarting (${code})`, removing: "Removal In Progress", exited: `Exited (${code})`, dead: "Dead" }[c.state];
  return { id: c.id, name: c.name, state: c.state, status, labels: { ...c.labels }, createdAt: c.createdAt, addresses: { ...c.addresses } };
}

export function networkInfo(n: FakeNetwork): NetworkInfo {
  return { id: n.id, name: n.name, labels: { ...n.labels }, subnets: [n.subnet], gateway: n.gateway, containers: [...n.containers] };
}
