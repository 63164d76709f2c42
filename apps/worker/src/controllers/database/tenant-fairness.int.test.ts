// A stuck database of one organization holds back no other's (issue 22, item 3). Organization A has
// five databases on an image whose pg_isready never exits (the tenant chose it); organization B has
// one on the PostgreSQL test image. Against the real engine and a real worker: B's reaches running,
// and each of A's probes is stopped and killed at its deadline, not left running in A's containers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDatabase } from "@levelrail/services/database/view";
import { createDatabase } from "@levelrail/services/database/write";
import { DatabaseRoles, Labels, instanceFilter } from "@levelrail/spec/naming";
import { ensureTestImage } from "@levelrail/testkit/images";
import { POSTGRES_TEST_IMAGE, ensurePostgresImage } from "@levelrail/testkit/postgres-image";
import { seedOrg } from "@levelrail/testkit/seed";
import { waitFor } from "@levelrail/testkit/wait";
import { setupSuite } from "../../../test/harness";

let s: Awaited<ReturnType<typeof setupSuite>>;
let orgB: Awaited<ReturnType<typeof seedOrg>>;
const script = (body: string) => ({ content: `#!/bin/sh\n${body}\n`, mode: 0o755 });
/** Runs (sleeps); its pg_isready never exits (and is told apart from the container's own sleep). */
const STUCK = {
  tag: "levelrail-test/pg-stuck-server:v1",
  body: "stuck\n",
  healthy: false,
  cmd: ["/bin/busybox", "sleep", "100000"],
  files: { "bin/pg_isready": script("exec /bin/busybox sleep 100001") },
} as const;
const STUCK_DATABASES = 5;

beforeAll(async () => {
  s = await setupSuite("fairdb");
  await ensurePostgresImage(s.runtime.docker);
  await ensureTestImage(s.runtime.docker, STUCK);
  orgB = await seedOrg(s.db, "fairdb-b", s.kit);
}, 240_000);

afterAll(async () => {
  await s?.teardown();
  for (const v of (await s?.runtime.listVolumes(instanceFilter(s.shortName))) ?? []) await s.runtime.removeVolume(v.name).catch(() => {});
}, 120_000);

/** The processes in a container (the engine's `top`) whose command line matches. */
async function running(id: string, what: RegExp): Promise<number> {
  const top = (await s.runtime.docker.getContainer(id).top({ ps_args: "-o pid,args" })) as { Processes: string[][] };
  return top.Processes.filter((p) => what.test(p.join(" "))).length;
}

describe("database work of one organization and another's", () => {
  it("runs B's database while A's five never get ready, and leaves no probe of A's running past its deadline", async () => {
    const ctxB = { ...orgB, shortName: s.shortName };
    for (let i = 0; i < STUCK_DATABASES; i++) {
      await createDatabase({ ctx: s.ctx, envId: s.ctx.envId, input: { name: `stuck-${i}`, version: "15", image: STUCK.tag } });
    }
    await createDatabase({ ctx: ctxB, envId: orgB.envId, input: { name: "orders", version: "15", image: POSTGRES_TEST_IMAGE } });
    const started = Date.now();
    await s.startWorker({ probeIntervalMs: 100 });
    const b = await waitFor(
      "B's database to run",
      async () => {
        const d = await getDatabase({ ctx: ctxB, envId: orgB.envId, name: "orders" });
        return d.phase === "running" ? d : undefined;
      },
      { timeoutMs: 120_000, describe: async () => JSON.stringify(await getDatabase({ ctx: ctxB, envId: orgB.envId, name: "orders" })) },
    );
    console.log(`[fairdb] B's database ran ${Date.now() - started} ms after the worker started, beside ${STUCK_DATABASES} stuck databases of A`);
    expect(b.phase).toBe("running");

    // Let A's probes go through several deadlines (5 s each): a probe left running would pile up.
    const stuck = async () =>
      (await s.runtime.listContainers(instanceFilter(s.shortName))).filter((c) => c.labels[Labels.role] === DatabaseRoles.database && c.state === "running" && c.name.includes("stuck"));
    await waitFor("A's five servers to run", async () => ((await stuck()).length === STUCK_DATABASES ? true : undefined), { timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, Math.max(0, 17_000 - (Date.now() - started))));
    const counts = await Promise.all((await stuck()).map((c) => running(c.id, /sleep 100001/)));
    console.log(`[fairdb] pg_isready processes in A's servers after ${Date.now() - started} ms: ${counts.join(", ")}`);
    // At most the one probe in flight now; before probes had deadlines, each one left its process behind.
    for (const n of counts) expect(n).toBeLessThanOrEqual(1);
    for (let i = 0; i < STUCK_DATABASES; i++) {
      const a = await getDatabase({ ctx: s.ctx, envId: s.ctx.envId, name: `stuck-${i}` });
      expect(a.phase).toBe("starting");
    }
  }, 200_000);
});
