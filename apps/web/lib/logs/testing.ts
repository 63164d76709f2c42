import type { TestImage } from "@levelrail/testkit/images";

/**
 * Test support for the logs route (the integration test and bench/logs.ts): an image that prints
 * numbered lines, and a reader of a Server-Sent Events response.
 */

/**
 * `levelrail-test/numbered:<tag>`: serves HTTP on 8080, prints `token=$TOKEN`, then `<tag> 1`,
 * `<tag> 2`, … every `intervalMs` (100 ms); ready (GET /healthz answers) only
 * from its 15th line, so it prints while getting ready. Its own shell runs it, inside the container.
 */
export function numberedImage(tag: string, o: { intervalMs?: number } = {}): TestImage {
  const script = [
    "/bin/busybox httpd -p 8080 -h /www",
    'echo "token=$TOKEN"',
    "i=1",
    `while true; do echo "${tag} $i"; [ "$i" = 15 ] && /bin/busybox cp /ready /www/healthz; i=$((i+1)); /bin/busybox usleep ${(o.intervalMs ?? 100) * 1000}; done`,
  ].join("; ");
  return {
    tag: `levelrail-test/numbered:${tag}${o.intervalMs ? `-${o.intervalMs}ms` : ""}`,
    body: `${tag}\n`,
    healthy: false,
    files: { ready: "ok\n" },
    cmd: ["/bin/sh", "-c", script],
  };
}

export interface ReadEvent {
  event: string;
  data: Record<string, unknown>;
  /** When this process read it (ms since epoch). */
  receivedAt: number;
}

/** Reads a `text/event-stream` response's events as they come. */
export function readEvents(res: Response) {
  if (!res.body) throw new Error("the response has no body");
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const events: ReadEvent[] = [];
  let buf = "";
  let ended = false;
  const pump = async () => {
    const r = await reader.read();
    if (r.done) {
      ended = true;
      return;
    }
    buf += decoder.decode(r.value, { stream: true });
    for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      let event = "message";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (data) events.push({ event, data: JSON.parse(data) as Record<string, unknown>, receivedAt: Date.now() });
    }
  };
  return {
    events,
    /** Reads until `done(events)` holds; fails when the stream ends first or after `timeoutMs`. */
    async until(done: (events: ReadEvent[]) => boolean, timeoutMs = 60_000): Promise<ReadEvent[]> {
      const deadline = Date.now() + timeoutMs;
      while (!done(events)) {
        if (ended) throw new Error(`the stream ended first; ${events.length} events: ${JSON.stringify(events.slice(-5))}`);
        if (Date.now() > deadline) throw new Error(`timed out; ${events.length} events: ${JSON.stringify(events.slice(-5))}`);
        await pump();
      }
      return events;
    },
    /** Closes it as a browser tab going away would. */
    async close() {
      await reader.cancel();
    },
  };
}
