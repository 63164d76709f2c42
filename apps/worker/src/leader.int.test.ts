import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { createApp } from "@levelrail/services/app/app";
import { deployService } from "@levelrail/services/release/deploy";
import { getStatus } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { ensureTestImage } from "@levelrail/testkit/images";
import { seedOrg } from "@levelrail/testkit/seed";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES } from "../test/harness";
import { type WorkerProcess, counterSum, servesMetrics, workerInstallation } from "../test/processes";

/**
 * Two real worker processes of one installation (one database, one short name): one leads and
 * reconciles, the other stands by; `kill -9` of the leader hands the lead over. "Leads" is seen
 * two ways: the `[leader]` log lines, and the metrics port, which a worker serves only while
 * it runs its controllers. A sampler asks both ports at once all along; never may both answer.
 */
let inst: Awaited<ReturnType<typeof workerInstallation>>;
let db: Db;
let sql: Sql;
let ctx: Awaited<ReturnType<typeof seedOrg>>;

const ROLE = /\[leader\] (leading|another worker leads)/;
const LEADING = /\[leader\] leading/;
const READY = /^worker ready/;

beforeAll(async () => {
  // A short resync: each deploy is picked up within a second whether its wake-up comes by
  // NOTIFY or by the resync, so the test is about leadership, not about how keys travel.
  inst = await workerInstallation("leader", { resyncSeconds: 1 });
  for (const img of [IMAGES.v1, IMAGES.v2]) await ensureTestImage(inst.runtime.docker, img);
  ({ db, sql } = createDb(inst.databaseUrl));
  ctx = await seedOrg(db, "leader", inst.kit);
  await createApp({ ctx, envId: ctx.envId, input: { name: "shop" } });
  await createService({ ctx, envId: ctx.envId, input: { name: "web", app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } });
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await inst?.teardown();
});

async function deployAndWait(image: string) {
  const rel = await deployService({ ctx, envId: ctx.envId, name: "web", input: { image } });
  return waitFor(
    `release ${rel.id} of web to run`,
    async () => {
      const st = await getStatus({ ctx, envId: ctx.envId, name: "web" });
      if (st.lastDeploy?.id !== rel.id) return undefined;
      if (st.lastDeploy.outcome === "failed") throw new Error(`deploy failed: ${st.message}`);
      return st.lastDeploy.outcome === "succeeded" && st.phase === "running" ? st : undefined;
    },
    { timeoutMs: 60_000, describe: async () => JSON.stringify(await getStatus({ ctx, envId: ctx.envId, name: "web" })) },
  );
}

const applicationPasses = async (w: WorkerProcess) => {
  const text = await fetch(`http://127.0.0.1:${w.metricsPort}/metrics`).then((r) => r.text());
  return counterSum(text, "levelrail_reconciles_total", { controller: "application", result: "ok" });
};

/** Leadership intervals from a worker's log: from each `leading` line to the next loss of the lead, its kill, or now. */
function leadIntervals(w: WorkerProcess, killedAt: number | null): [number, number][] {
  const out: [number, number][] = [];
  let from: number | null = null;
  for (const l of w.lines) {
    if (LEADING.test(l.line)) from = l.at;
    else if (from !== null && /\[leader\] lost the lead/.test(l.line)) {
      out.push([from, l.at]);
      from = null;
    }
  }
  if (from !== null) out.push([from, killedAt ?? Date.now()]);
  return out;
}

describe("leader election between two worker processes", () => {
  it("one leads and deploys, the other stands by; after kill -9 the standby leads and deploys; never both", async () => {
    const a = await inst.spawn("a");
    const b = await inst.spawn("b");

    // Both ports asked at the same moment, every 100 ms, for the whole test.
    let both = 0;
    let samples = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const [x, y] = await Promise.all([servesMetrics(a.metricsPort), servesMetrics(b.metricsPort)]);
        samples++;
        if (x && y) both++;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    const roles = await Promise.all([a, b].map(async (w) => ({ w, line: await w.waitLine(ROLE, { timeoutMs: 60_000 }) })));
    const leaders = roles.filter((r) => LEADING.test(r.line.line));
    expect(leaders, roles.map((r) => `${r.w.name}: ${r.line.line}`).join("; ")).toHaveLength(1);
    const leader = leaders[0]!.w;
    const standby = leader === a ? b : a;
    expect(roles.find((r) => r.w === standby)!.line.line).toMatch(/standing by/);
    await leader.waitLine(READY);

    // The first deploy: the leader's application controller did it, the standby runs none.
    const first = await deployAndWait(IMAGES.v1.tag);
    expect(first.image).toBe(IMAGES.v1.tag);
    expect(await applicationPasses(leader)).toBeGreaterThan(0);
    expect(await servesMetrics(standby.metricsPort)).toBe(false);
    expect(standby.lines.some((l) => LEADING.test(l.line) || READY.test(l.line))).toBe(false);

    // kill -9 of the leader: its session, and the lock with it, goes; the standby takes over.
    const seen = standby.lines.length;
    const killedAt = leader.kill9();
    expect(await leader.exited).toBe("SIGKILL");
    const took = await standby.waitLine(LEADING, { from: seen, timeoutMs: 10_000 });
    expect(took.at).toBeGreaterThanOrEqual(killedAt);
    await standby.waitLine(READY, { from: seen });

    // The second deploy is the new leader's.
    const second = await deployAndWait(IMAGES.v2.tag);
    expect(second.image).toBe(IMAGES.v2.tag);
    expect(await applicationPasses(standby)).toBeGreaterThan(0);
    const running = (await inst.runtime.listContainers([`levelrail.instance=${inst.shortName}`])).filter((c) => c.state === "running");
    expect(running).toHaveLength(1);

    sampling = false;
    await sampler;
    expect(samples).toBeGreaterThan(20);
    expect(both).toBe(0);

    // From the logs: the two workers' spans of leading do not overlap.
    const spans = [...leadIntervals(leader, killedAt), ...leadIntervals(standby, null)].sort((x, y) => x[0] - y[0]);
    expect(spans).toHaveLength(2);
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
  }, 180_000);
});
