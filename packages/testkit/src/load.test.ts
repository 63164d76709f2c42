// The load generator's paced mode against a real HTTP server on loopback: it keeps its rate, and a
// stall counts against every request scheduled during it (no coordinated omission).
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { percentile, startLoad } from "./load";

let server: Server;
let url = "";
/** While set, the server holds every answer until this moment. */
let stallUntil = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    const wait = Math.max(0, stallUntil - performance.now());
    setTimeout(() => res.end("ok"), wait);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("startLoad, paced", () => {
  it("sends about its rate, however fast the server answers", async () => {
    const load = startLoad({ url, host: "x.localhost", concurrency: 4, maxRequests: 100_000, maxMs: 60_000, ratePerSecond: 200 });
    await new Promise((r) => setTimeout(r, 1_000));
    const result = await load.stop();
    expect(result.failed).toBe(0);
    expect(result.total).toBeGreaterThanOrEqual(140);
    expect(result.total).toBeLessThanOrEqual(210);
  });

  it("counts a stall against the requests scheduled during it, not only the one that met it", async () => {
    const load = startLoad({ url, host: "x.localhost", concurrency: 2, maxRequests: 100_000, maxMs: 60_000, ratePerSecond: 100 });
    await new Promise((r) => setTimeout(r, 300));
    stallUntil = performance.now() + 300;
    await new Promise((r) => setTimeout(r, 700));
    const result = await load.stop();
    stallUntil = 0;
    // ~30 requests were due in the 300 ms stall (2 loops at 100 a second): each waited from its
    // scheduled moment, so well over 1 % of the ~100 samples took 100 ms or more.
    const slow = result.samples.filter((s) => s.ms >= 100).length;
    expect(slow).toBeGreaterThanOrEqual(10);
    expect(percentile(result.samples.map((s) => s.ms), 99)).toBeGreaterThanOrEqual(200);
  });
});
