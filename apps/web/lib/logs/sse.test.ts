import { describe, expect, it } from "vitest";
import type { LogEvent } from "./follow";
import { sseFrame, sseResponse } from "./sse";

/** An endless source that counts how far it was pulled and whether it was closed. */
function source() {
  const state = { pulled: 0, closed: false };
  async function* gen(): AsyncGenerator<LogEvent> {
    try {
      for (;;) {
        state.pulled++;
        yield { type: "line", container: "c", stream: "stdout", at: "t", line: `n ${state.pulled}` };
      }
    } finally {
      state.closed = true;
    }
  }
  return { state, events: gen() };
}

describe("sseResponse", () => {
  it("pulls an event only when the client has taken the last: a client that reads nothing holds it at one or two", async () => {
    const { state, events } = source();
    const res = sseResponse(events, new AbortController());
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    await new Promise((r) => setTimeout(r, 50));
    expect(state.pulled).toBeLessThanOrEqual(2);
    const reader = res.body!.getReader();
    const text = new TextDecoder().decode((await reader.read()).value);
    expect(text).toBe("retry: 2000\n\n");
    for (let i = 0; i < 100; i++) await reader.read();
    expect(state.pulled).toBeLessThanOrEqual(102);
  });

  it("a client going away (cancel) or an aborted request ends the source and aborts its engine streams", async () => {
    const a = source();
    const abortA = new AbortController();
    const res = sseResponse(a.events, abortA);
    const reader = res.body!.getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    expect(abortA.signal.aborted).toBe(true);
    expect(a.state.closed).toBe(true);

    const b = source();
    const request = new AbortController();
    const abortB = new AbortController();
    sseResponse(b.events, abortB, request.signal);
    request.abort();
    expect(abortB.signal.aborted).toBe(true);
  });

  it("writes lines and markers as named events, pings as comments", () => {
    expect(sseFrame({ type: "marker", at: "t", container: "c2", release: "r", text: "switched to c2" })).toBe(
      'event: marker\ndata: {"at":"t","container":"c2","release":"r","text":"switched to c2"}\n\n',
    );
    expect(sseFrame({ type: "line", container: "c", stream: "stderr", at: "t", line: "a\nb" })).toBe('event: line\ndata: {"container":"c","stream":"stderr","at":"t","line":"a\\nb"}\n\n');
    expect(sseFrame({ type: "ping" })).toBe(": ping\n\n");
  });
});
