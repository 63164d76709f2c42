import type { LogEvent } from "./follow";

/**
 * One event in the Server-Sent Events wire format. A line's JSON never holds a raw newline (JSON
 * escapes it), so every event is one `data:` line. A ping is a comment.
 */
export function sseFrame(e: LogEvent): string {
  if (e.type === "ping") return ": ping\n\n";
  const { type, ...data } = e;
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The events as a `text/event-stream` response, pulled one at a time: the next event is read
 * (and the engine's stream with it) only when the client has taken the last one, so a slow client
 * holds the engine back instead of filling memory. The stream ends with an `end` event when the
 * events do; when the client goes away (the tab closed, `cancel`) or the request is aborted,
 * `abort` stops the events and the engine streams behind them.
 */
export function sseResponse(events: AsyncGenerator<LogEvent>, abort: AbortController, requestSignal?: AbortSignal): Response {
  const encoder = new TextEncoder();
  const onAbort = () => abort.abort();
  requestSignal?.addEventListener("abort", onAbort, { once: true });
  const finish = async () => {
    requestSignal?.removeEventListener("abort", onAbort);
    abort.abort();
    await events.return(undefined).catch(() => undefined);
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // Tells EventSource how long to wait before it reconnects on its own.
        controller.enqueue(encoder.encode("retry: 2000\n\n"));
      },
      async pull(controller) {
        try {
          const r = await events.next();
          if (r.done || abort.signal.aborted) {
            if (!abort.signal.aborted) controller.enqueue(encoder.encode("event: end\ndata: {}\n\n"));
            await finish();
            controller.close();
            return;
          }
          controller.enqueue(encoder.encode(sseFrame(r.value)));
        } catch (err) {
          await finish();
          const message = err instanceof Error ? err.message : "the log stream failed";
          controller.enqueue(encoder.encode(`event: failure\ndata: ${JSON.stringify({ message: `the log stream failed: ${message.split("\n")[0]}` })}\n\n`));
          controller.close();
        }
      },
      async cancel() {
        await finish();
      },
    },
    { highWaterMark: 1 },
  );
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      // Tells a buffering reverse proxy (nginx) to pass events through at once.
      "x-accel-buffering": "no",
    },
  });
}
