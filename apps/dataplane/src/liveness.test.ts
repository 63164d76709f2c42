import { type Server, createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DataPlaneState } from "@levelrail/spec/dataplane";
import { TaskLiveness, connects } from "./liveness";

let server: Server;
let open = 0;
let closed = 0;
beforeAll(async () => {
  server = createServer((s) => s.end());
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  open = (server.address() as { port: number }).port;
  // A port that was just free: nothing listens there (connects are refused).
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  closed = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
});
afterAll(() => new Promise((r) => server.close(r)));

const stateWith = (tasks: { address: string; port: number }[]): DataPlaneState => ({
  version: 1,
  generation: 1,
  services: Object.fromEntries(tasks.map((t, i) => [`s${i}`, { appId: "a", app: "shop", service: `web${i}`, container: `svc${i}`, port: t.port, tasks: [{ name: `t${i}`, address: t.address }] }])),
  domains: {},
});

describe("the data plane's task probes", () => {
  it("a connect answers whether a TCP port accepts", async () => {
    expect(await connects("127.0.0.1", open, 1000)).toBe(true);
    expect(await connects("127.0.0.1", closed, 1000)).toBe(false);
  });

  it("a task that stops answering is left out until it answers again; tasks gone from the state are forgotten", async () => {
    const lines: string[] = [];
    const answering = new Set([`127.0.0.1:${open}`]);
    const l = new TaskLiveness({ log: (x) => lines.push(x), connect: async (a, p) => answering.has(`${a}:${p}`) });
    l.setState(stateWith([{ address: "127.0.0.1", port: open }, { address: "127.0.0.1", port: closed }]));
    expect(l.isLive("127.0.0.1", closed)).toBe(true); // not probed yet
    await l.probe();
    expect([l.isLive("127.0.0.1", open), l.isLive("127.0.0.1", closed)]).toEqual([true, false]);
    answering.add(`127.0.0.1:${closed}`);
    await l.probe();
    expect(l.isLive("127.0.0.1", closed)).toBe(true);
    expect(lines).toEqual([`[live] task 127.0.0.1:${closed} does not answer: left out of the answers until it does`, `[live] task 127.0.0.1:${closed} answers again`]);
    answering.clear();
    await l.probe();
    l.setState(stateWith([]));
    expect(l.isLive("127.0.0.1", open)).toBe(true);
  });

  it("start resolves once the first round is done: a replica that starts never names a task it has not asked", async () => {
    let release!: () => void;
    const asked = new Promise<void>((r) => (release = r));
    const l = new TaskLiveness({ log: () => {}, intervalMs: 60_000, connect: async () => (await asked, false) });
    l.setState(stateWith([{ address: "127.0.0.1", port: closed }]));
    let started = false;
    const start = l.start().then(() => (started = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(started).toBe(false); // still probing
    release();
    await start;
    expect(l.isLive("127.0.0.1", closed)).toBe(false);
    l.stop();
  });
});
