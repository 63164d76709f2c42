/** BuildKit's StatusResponse as decoded from a `moby.buildkit.trace` message (the fields read here). */
export interface BuildkitStatus {
  vertexes?: { digest: string; name: string; cached: boolean; started?: unknown; completed?: unknown; error: string }[];
  logs?: { vertex: string; msg: Buffer | Uint8Array | string }[];
  warnings?: { vertex: string; short: Buffer | Uint8Array | string }[];
}

/** A Dockerfile step as BuildKit names it (`[2/3] RUN make`, `[stage 1/2] COPY …`), other than its FROM. */
const STEP = /^\[(\S+ )?\d+\/\d+\] (?!FROM )/;

const text = (b: Buffer | Uint8Array | string) => (typeof b === "string" ? b : Buffer.from(b).toString("utf8"));

/**
 * Turns BuildKit's status updates into plain lines, as `docker build --progress=plain` prints them
 * (`#3 [2/3] RUN make`, `#3 CACHED`, `#3 ERROR: …`, each log line under its step's number), and
 * remembers which step failed and how many were cached.
 */
export class BuildProgress {
  private readonly numbers = new Map<string, number>();
  private readonly names = new Map<string, string>();
  private readonly done = new Set<string>();
  private readonly cached = new Set<string>();
  private failure: { step: string; message: string } | null = null;
  /** A log line cut by the end of a message, finished by the next. */
  private readonly partial = new Map<string, string>();

  constructor(private readonly onLine: (line: string) => void) {}

  private number(digest: string): number {
    let n = this.numbers.get(digest);
    if (n === undefined) {
      n = this.numbers.size + 1;
      this.numbers.set(digest, n);
    }
    return n;
  }

  status(s: BuildkitStatus): void {
    for (const v of s.vertexes ?? []) {
      const n = this.number(v.digest);
      if (v.name && !this.names.has(v.digest)) {
        this.names.set(v.digest, v.name);
        this.onLine(`#${n} ${v.name}`);
      }
      if (this.done.has(v.digest)) continue;
      if (v.error) {
        this.done.add(v.digest);
        this.flush(v.digest);
        this.onLine(`#${n} ERROR: ${v.error}`);
        // The first step that failed is the cause; a cancelled sibling is not.
        if (!this.failure && !/context canceled/i.test(v.error)) this.failure = { step: v.name, message: v.error };
      } else if (v.completed && v.cached) {
        this.done.add(v.digest);
        this.cached.add(v.digest);
        this.onLine(`#${n} CACHED`);
      } else if (v.completed) {
        this.done.add(v.digest);
        this.flush(v.digest);
        this.onLine(`#${n} DONE`);
      }
    }
    for (const l of s.logs ?? []) {
      const n = this.number(l.vertex);
      const all = (this.partial.get(l.vertex) ?? "") + text(l.msg);
      const lines = all.split(/\r?\n/);
      this.partial.set(l.vertex, lines.pop() ?? "");
      for (const line of lines) this.onLine(`#${n} ${line}`);
    }
    for (const w of s.warnings ?? []) this.onLine(`#${this.number(w.vertex)} WARNING: ${text(w.short)}`);
  }

  private flush(digest: string): void {
    const rest = this.partial.get(digest);
    if (rest) this.onLine(`#${this.number(digest)} ${rest}`);
    this.partial.delete(digest);
  }

  /** The first step that failed and its error. */
  failed(): { step: string; message: string } | null {
    return this.failure;
  }

  /** Dockerfile steps (`[n/m] …`, `FROM` left out: it builds nothing) that were cached. */
  cachedSteps(): number {
    return [...this.cached].filter((d) => STEP.test(this.names.get(d) ?? "")).length;
  }

  /** Dockerfile steps (`[n/m] …`, `FROM` left out) seen. */
  steps(): number {
    return [...this.names.values()].filter((n) => STEP.test(n)).length;
  }
}
