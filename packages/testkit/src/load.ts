import { Agent, request } from "node:http";

export interface LoadOptions {
  /** Where to send requests: an address on loopback (Caddy's ingress port), e.g. `http://127.0.0.1:18080/`. */
  url: string;
  /** The `Host:` header (the domain being routed). */
  host: string;
  /** Concurrent request loops, each on its own keep-alive connection. */
  concurrency: number;
  /** Hard bounds: the load stops by itself after this many requests or this long, whichever comes first. */
  maxRequests: number;
  maxMs: number;
  /** Per-request timeout; a request that takes longer counts as failed. */
  timeoutMs?: number;
  /**
   * Paced (open loop): the loops together send this many requests a second, each at its scheduled
   * moment, and a request's latency counts from that moment (a loop held up by a slow answer sends
   * late, and the wait counts: no coordinated omission). Unset: back to back, as fast as answered.
   */
  ratePerSecond?: number;
}

export interface Sample {
  /** performance.now() when the request was sent. */
  at: number;
  ms: number;
  ok: boolean;
}

export interface LoadResult {
  total: number;
  failed: number;
  /** Up to 20 descriptions of failed requests (status and body, or the error). */
  failures: string[];
  /** Response body → how many times it was seen (successful responses only). */
  bodies: Map<string, number>;
  /** The body of the last successful response. */
  lastBody: string | null;
  samples: Sample[];
  /** Whether a bound (maxRequests or maxMs) stopped the load before stop() was called. */
  hitBound: boolean;
}

export interface RunningLoad {
  /** Live view of the counters while the load runs. */
  readonly result: LoadResult;
  /** Waits until `n` more requests have succeeded (bounded by the load's own limits). */
  successes(n: number, timeoutMs?: number): Promise<void>;
  /** Stops the loops, waits for requests in flight, closes the connections. */
  stop(): Promise<LoadResult>;
}

/**
 * A load generator for zero-downtime checks: `concurrency` loops send GET
 * requests back to back on keep-alive connections; a non-2xx answer or a
 * connection error is a failure. Bounded in count and time.
 */
export function startLoad(o: LoadOptions): RunningLoad {
  const agent = new Agent({ keepAlive: true, maxSockets: o.concurrency, maxFreeSockets: o.concurrency });
  const target = new URL(o.url);
  const started = performance.now();
  const result: LoadResult = { total: 0, failed: 0, failures: [], bodies: new Map(), lastBody: null, samples: [], hitBound: false };
  let stopping = false;
  let okCount = 0;

  const once = () =>
    new Promise<{ ok: boolean; detail: string; body: string }>((resolve) => {
      const req = request(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, method: "GET", agent, headers: { Host: o.host }, timeout: o.timeoutMs ?? 10_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const body = Buffer.concat(chunks).toString();
            const status = res.statusCode ?? 0;
            resolve({ ok: status >= 200 && status < 300, detail: `HTTP ${status}: ${body.slice(0, 200).trim()}`, body });
          });
          res.on("error", (err) => resolve({ ok: false, detail: `response: ${err.message}`, body: "" }));
        },
      );
      req.on("timeout", () => req.destroy(new Error(`no answer within ${o.timeoutMs ?? 10_000} ms`)));
      req.on("error", (err) => resolve({ ok: false, detail: `request: ${(err as NodeJS.ErrnoException).code ?? ""} ${err.message}`, body: "" }));
      req.end();
    });

  const loop = async (index: number) => {
    for (let k = 0; !stopping; k++) {
      if (result.total >= o.maxRequests || performance.now() - started >= o.maxMs) {
        result.hitBound = true;
        return;
      }
      let at = performance.now();
      if (o.ratePerSecond) {
        // Loop `index` sends the requests numbered index, index + concurrency, …, of the whole schedule.
        at = started + ((k * o.concurrency + index) * 1000) / o.ratePerSecond;
        const wait = at - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (stopping) return;
      }
      result.total++;
      const r = await once();
      result.samples.push({ at, ms: performance.now() - at, ok: r.ok });
      if (r.ok) {
        okCount++;
        result.bodies.set(r.body, (result.bodies.get(r.body) ?? 0) + 1);
        result.lastBody = r.body;
      } else {
        result.failed++;
        if (result.failures.length < 20) result.failures.push(`${new Date().toISOString()} ${r.detail}`);
      }
    }
  };

  const loops = Array.from({ length: o.concurrency }, (_, i) => loop(i));
  const done = Promise.all(loops);

  return {
    result,
    async successes(n, timeoutMs = 30_000) {
      const goal = okCount + n;
      const deadline = performance.now() + timeoutMs;
      while (okCount < goal) {
        if (result.hitBound || performance.now() > deadline) throw new Error(`the load did not get ${n} successful responses (${JSON.stringify({ total: result.total, failed: result.failed, failures: result.failures })})`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      stopping = true;
      await done;
      agent.destroy();
      return result;
    },
  };
}

/** The p-th percentile (0-100) of `xs`, nearest rank; NaN for none. */
export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** One request of `whileLoaded`: its body when it succeeded, what failed otherwise; null when there is nothing to send to yet. */
export type Sent = { ok: true; body: string } | { ok: false; detail: string } | null;

/**
 * Sends `send` in a loop, one at a time, while `work` runs and `settleMs` after it: how many were
 * sent, what failed, and every body answered (to see which releases served).
 */
export async function whileLoaded<T>(send: () => Promise<Sent>, work: () => Promise<T>, settleMs = 1_000): Promise<{ result: T; sent: number; failures: string[]; bodies: Set<string> }> {
  let stop = false;
  let sent = 0;
  const failures: string[] = [];
  const bodies = new Set<string>();
  const load = (async () => {
    while (!stop) {
      const r = await send().catch((err: unknown) => ({ ok: false as const, detail: err instanceof Error ? err.message : String(err) }));
      if (r === null) {
        await new Promise((done) => setTimeout(done, 50));
        continue;
      }
      sent++;
      if (r.ok) bodies.add(r.body);
      else failures.push(r.detail);
    }
  })();
  try {
    const result = await work();
    await new Promise((done) => setTimeout(done, settleMs));
    return { result, sent, failures, bodies };
  } finally {
    stop = true;
    await load;
  }
}
