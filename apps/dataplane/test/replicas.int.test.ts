import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePortPair } from "@levelrail/testkit/registry";
import { meshZone } from "@levelrail/spec/naming";
import { Replica, askSrv, sleep, writeState } from "./replicas";

/**
 * Two real mesh DNS replicas (ports P and P+1), as the engine runs them: each answers DNS over TCP
 * and HTTP on its port, and kills its sibling when it freezes.
 */
// Free ports of this suite's own: the `npm test` run around it holds its own ports with its data plane and Caddy.
const BASE = await freePortPair();
const short = `lrmd${randomBytes(2).toString("hex")}`;
const zone = meshZone(short);
const domain = `shop-${short}.localhost`;
const dataDir = mkdtempSync(join(tmpdir(), "levelrail-replicas-"));
const env: NodeJS.ProcessEnv = { ...process.env, LEVELRAIL_DATA_DIR: dataDir, LEVELRAIL_SHORT_NAME: short, LEVELRAIL_MESH_DNS_PORT: String(BASE), LEVELRAIL_DATAPLANE_VERSION: "test" };
delete env.LEVELRAIL_MESH_DNS_REPLICA;
const replicas: Replica[] = [];
const health = async (port: number) => (await (await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) })).json()) as { pid: number; replica: number };

/** Asks `port` every 10 ms until `until` resolves: how many answered, failed, and the slowest. */
async function keepAsking(port: number, until: Promise<unknown>) {
  let done = false;
  void until.finally(() => (done = true));
  const r = { ok: 0, failed: 0, maxMs: 0, errors: [] as string[] };
  while (!done) {
    try {
      const a = await askSrv(port, `${domain}._route.${zone}`, 1000);
      r.ok++;
      r.maxMs = Math.max(r.maxMs, a.ms);
    } catch (err) {
      r.failed++;
      if (r.errors.length < 5) r.errors.push(String(err));
    }
    await sleep(10);
  }
  return r;
}

/** Freezes `victim` and measures what its sibling does about it. */
async function freeze(victim: Replica, sibling: Replica) {
  await victim.settled(sibling);
  const pid = victim.pid;
  const gone = new Promise<void>((resolve) => {
    const t = setInterval(() => victim.exit && (clearInterval(t), resolve()), 5);
  });
  const t0 = performance.now();
  victim.signal("SIGSTOP");
  // A lookup sent to the frozen one right away: it hangs until the kill resets it.
  const stuck = askSrv(victim.port, `${domain}._route.${zone}`, 3000).then(
    () => ({ answered: true, ms: performance.now() - t0 }),
    () => ({ answered: false, ms: performance.now() - t0 }),
  );
  const [asked] = await Promise.all([keepAsking(sibling.port, Promise.race([gone, sleep(3000)])), gone]);
  await sleep(100);
  const killedAfterMs = victim.exit!.at - t0;
  const lookup = await stuck;
  console.log(
    `replica ${victim.replica} (pid ${pid}) frozen: SIGKILLed by replica ${sibling.replica} after ${killedAfterMs.toFixed(0)} ms; ` +
      `a lookup sent to it failed after ${lookup.ms.toFixed(0)} ms; replica ${sibling.replica} answered ${asked.ok} lookups meanwhile (${asked.failed} failed, slowest ${asked.maxMs.toFixed(1)} ms)`,
  );
  return { killedAfterMs, lookup, asked };
}

beforeAll(async () => {
  // The domain's service: a container the engine does not have, so the route is the fallback page (no engine needed here).
  writeState(dataDir, { version: 1, generation: 1, services: { s1: { appId: "a1", app: "shop", service: "web", container: `${short}-web-x`, port: 8080 } }, domains: { [domain]: "s1" } });
  for (const i of [0, 1]) replicas.push(new Replica(i, env));
  for (const r of replicas) await r.start();
});

afterAll(async () => {
  // What the watchdogs did, for the record.
  console.log(replicas.flatMap((r) => r.output.split("\n").filter((l) => l.includes("[watchdog]") || l.includes("took over"))).join("\n"));
  for (const r of replicas) await r.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("two mesh DNS replicas", () => {
  it("each answers DNS over TCP and HTTP on its own port, and names its pid and replica", async () => {
    for (const r of replicas) {
      expect(await askSrv(r.port, `${domain}._route.${zone}`)).toMatchObject({ target: `_fallback._ctr.${zone}`, port: r.port });
      expect(await health(r.port)).toMatchObject({ pid: r.pid, replica: r.replica });
      expect(Number(readFileSync(join(dataDir, "dataplane", `dns-${r.replica}.pid`), "utf8"))).toBe(r.pid);
    }
  });

  it("a frozen replica is SIGKILLed by its sibling within 300 ms, and the sibling keeps answering; the restarted one is watched again", async () => {
    const [r0, r1] = replicas as [Replica, Replica];
    const first = await freeze(r1, r0);
    expect(r1.exit?.signal).toBe("SIGKILL");
    expect(first.killedAfterMs).toBeLessThan(300);
    expect(first.lookup).toMatchObject({ answered: false });
    expect(first.lookup.ms).toBeLessThan(400);
    expect(first.asked.failed).toBe(0);
    expect(first.asked.maxMs).toBeLessThan(100);
    expect(r0.output).toMatch(new RegExp(`sibling \\(pid \\d+\\) gave no answer for \\d+ ms: killed it`));

    // The engine restarts it (here: the test); the other way round works the same.
    await r1.start();
    const second = await freeze(r0, r1);
    expect(r0.exit?.signal).toBe("SIGKILL");
    expect(second.killedAfterMs).toBeLessThan(300);
    expect(second.asked.failed).toBe(0);
    await r0.start();
    await r0.logged(`[watchdog] sibling is pid ${r1.pid}`);
  });

  it("a newer replica takes over from the older one of the same number only; its sibling never kills it", async () => {
    const [r0, r1] = replicas as [Replica, Replica];
    const old = r1;
    const newer = new Replica(1, env);
    const started = newer.start();
    const [asked, own] = await Promise.all([keepAsking(r0.port, started), keepAsking(old.port, started)]);
    await newer.logged(`took over from the data plane pid ${old.pid}`);
    await waitExit(old);
    expect(old.exit).toMatchObject({ code: 0, signal: null });
    console.log(`take-over of replica 1: replica 0 answered ${asked.ok} lookups (${asked.failed} failed); replica 1's port answered ${own.ok} and refused ${own.failed} (the gap while the new one waits for the old one's TCP port)`);
    expect(asked.failed).toBe(0);
    replicas[1] = newer;
    expect(await health(newer.port)).toMatchObject({ pid: newer.pid, replica: 1 });
    expect(Number(readFileSync(join(dataDir, "dataplane", "dns-0.pid"), "utf8"))).toBe(r0.pid);
    await r0.logged(`[watchdog] sibling is pid ${newer.pid}`);
    await sleep(500);
    expect(newer.exit).toBeNull();
    expect(r0.output).not.toContain(`(pid ${newer.pid}) gave no answer`);
  });
});

async function waitExit(r: Replica): Promise<void> {
  for (let i = 0; i < 200 && !r.exit; i++) await sleep(25);
}
