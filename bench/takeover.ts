/**
 * Leader takeover: two real worker processes of one installation (one database, one short name);
 * `kill -9` of the leader, then the time until the standby logs `[leader] leading`. Five kills,
 * the killed worker started again as the new standby each time, so the lead alternates. The
 * standby tries the lock every 500 ms: a kill lands at a random point of that cycle.
 *
 * baseline: from the same kill until PostgreSQL has dropped the dead leader's session and its
 * advisory lock (pg_locks, asked every 2 ms): the floor no standby can beat. The rest is the
 * standby's poll (every 500 ms) and its log line.
 */
import { createDb } from "@levelrail/db/client";
import { type WorkerProcess, workerInstallation } from "@levelrail/worker/processes";

const KILLS = Number(process.env.BENCH_KILLS ?? 5);
const LEADING = /\[leader\] leading/;
const STANDING_BY = /\[leader\] another worker leads/;
const READY = /^worker ready/;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const inst = await workerInstallation("takeover");
const { sql } = createDb(inst.databaseUrl);

/** Backends holding an advisory lock in this database (only the leader's lock lives here). */
const lockHolders = async () =>
  (await sql<{ pid: number }[]>`select pid from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`).map(
    (r) => r.pid,
  );

/** Resolves with the time (`Date.now()`) `pid` no longer holds the lock. */
async function lockFreed(pid: number): Promise<number> {
  for (;;) {
    if (!(await lockHolders()).includes(pid)) return Date.now();
    await new Promise((r) => setTimeout(r, 2));
  }
}

try {
  let spawned = 0;
  const spawn = async (role: RegExp): Promise<WorkerProcess> => {
    const w = await inst.spawn(`w${spawned++}`);
    await w.waitLine(role);
    if (role === LEADING) await w.waitLine(READY);
    return w;
  };
  let leader = await spawn(LEADING);
  let standby = await spawn(STANDING_BY);

  const takeovers: number[] = [];
  const freed: number[] = [];
  for (let i = 0; i < KILLS; i++) {
    // A kill at a random moment of the standby's poll cycle, not right after its first try.
    await new Promise((r) => setTimeout(r, 500 + Math.random() * 1000));
    const [holder] = await lockHolders();
    if (holder === undefined) throw new Error("nobody holds the leader lock");
    const seen = standby.lines.length;
    const freedAt = lockFreed(holder);
    const killedAt = leader.kill9();
    const took = await standby.waitLine(LEADING, { from: seen, timeoutMs: 10_000 });
    takeovers.push(took.at - killedAt);
    freed.push((await freedAt) - killedAt);
    await leader.exited;
    await standby.waitLine(READY, { from: seen });
    // The killed one comes back as the standby: the next kill hits the other process.
    leader = standby;
    standby = await spawn(STANDING_BY);
  }

  const t = median(takeovers);
  const f = median(freed);
  console.log(`leader takeover: ${t.toFixed(0)} ms`);
  console.log(`  each kill: ${takeovers.map((x) => x.toFixed(0)).join(", ")} ms (n=${takeovers.length}, standby polls every 500 ms)`);
  console.log(`lock freed after kill -9 (baseline): ${f.toFixed(0)} ms`);
  console.log(`takeover over lock freed: +${(t - f).toFixed(0)} ms`);
} finally {
  await sql.end({ timeout: 5 });
  await inst.teardown();
}
