// The control plane's database: reachable, migrations current, a worker leading and passing, and
// every scheduled database's last verified backup recent.
import { nextDue } from "@levelrail/spec/database";
import { type CheckResult, fail, ok, reason, seconds, warn } from "./result";

export interface JournalEntry {
  tag: string;
  /** drizzle's `when`: what `__drizzle_migrations.created_at` records for an applied migration. */
  when: number;
}

export interface Leader {
  /** The database session holding the leader lock. */
  pid: number;
  client: string | null;
}

export interface HeartbeatRow {
  runner: string;
  leadingForS: number;
  /** Seconds since the last resync finished (database time); null before the first. */
  passAgeS: number | null;
  resyncSeconds: number;
}

export interface BackupRow {
  /** `project/environment/database`. */
  database: string;
  cron: string | null;
  /** When the schedule was set (runs are due after it). */
  scheduleSince: Date | null;
  createdAt: Date;
  lastVerifiedAt: Date | null;
}

/** Every method throws when the database cannot be reached. */
export interface DbProbe {
  /** `host:port/database` (never the password), or null when there is no database URL. */
  where: string | null;
  version(): Promise<string>;
  /** `created_at` of every applied migration; null when none was ever applied (no table). */
  applied(): Promise<number[] | null>;
  journal(): JournalEntry[];
  leader(): Promise<Leader | null>;
  /** null: no row (or no table yet). */
  heartbeat(): Promise<HeartbeatRow | null>;
  backups(): Promise<{ now: Date; rows: BackupRow[] }>;
  /** The managed databases pinned to a swarm node (`project/environment/database`, the node's id). */
  pinned(): Promise<PinnedRow[]>;
}

export interface PinnedRow {
  database: string;
  nodeId: string;
}

export const NO_DATABASE = "DATABASE_URL is unset and no `npm start` runs the embedded database of this data dir: start it (`npm start`), or set DATABASE_URL";

export async function postgresCheck(p: DbProbe): Promise<CheckResult> {
  if (!p.where) return fail("postgres", NO_DATABASE);
  try {
    return ok("postgres", `${(await p.version()).split(" on ")[0]} answers at ${p.where}`, { where: p.where });
  } catch (err) {
    return fail("postgres", `PostgreSQL at ${p.where} does not answer (${reason(err)}): is \`npm start\` running, or is DATABASE_URL right?`, { where: p.where });
  }
}

/** A check that needs the database: "not checked" when it cannot be reached (the postgres check says why). */
async function withDb(name: string, p: DbProbe, run: () => Promise<CheckResult>): Promise<CheckResult> {
  if (!p.where) return warn(name, "not checked: no database (see postgres)");
  try {
    await p.version();
  } catch {
    return warn(name, "not checked: PostgreSQL does not answer (see postgres)");
  }
  return run();
}

/** Pure: drizzle applies every journal entry whose `when` is after the newest applied one. */
export function migrationsVerdict(journal: JournalEntry[], applied: number[] | null): CheckResult {
  const fix = "run `npx levelrail migrate` (`npm start` applies them too, after a copy of the database)";
  if (applied === null || applied.length === 0) return fail("migrations", `the database has no migrations applied: ${fix}`, { pending: journal.map((j) => j.tag) });
  const newest = Math.max(...applied);
  const pending = journal.filter((j) => j.when > newest).map((j) => j.tag);
  const last = journal[journal.length - 1];
  if (pending.length) return fail("migrations", `${pending.length} pending (${pending.slice(0, 3).join(", ")}${pending.length > 3 ? ", …" : ""}): ${fix}`, { pending });
  if (last && newest > last.when) {
    return warn("migrations", `the database has migrations this checkout does not know (it was migrated by a newer one): run the newer checkout, or restore a copy from <data dir>/backups`, { pending: [] });
  }
  return ok("migrations", `current (${applied.length} applied, the last ${last?.tag ?? "?"})`, { pending: [] });
}

export function migrationsCheck(p: DbProbe): Promise<CheckResult> {
  return withDb("migrations", p, async () => migrationsVerdict(p.journal(), await p.applied()));
}

/** A pass is late after two resync intervals and a little; stuck after ten. */
export const passLateS = (resyncSeconds: number) => 2 * resyncSeconds + 10;
export const passStuckS = (resyncSeconds: number) => 10 * resyncSeconds + 10;

/** Pure: whether a worker leads (it holds the leader lock) and whether its last pass is recent. */
export function workerVerdict(lockName: string, leader: Leader | null, beat: HeartbeatRow | null): CheckResult {
  if (!leader) return fail("worker", `no worker leads (no session holds the lock ${lockName}): nothing deploys or converges; is \`npm start\` running?`);
  const who = `a worker leads (database session ${leader.pid}${leader.client ? ` from ${leader.client}` : ""}${beat ? `, ${beat.runner}` : ""})`;
  const detail = { leaderPid: leader.pid, runner: beat?.runner ?? null, passAgeS: beat?.passAgeS ?? null, resyncSeconds: beat?.resyncSeconds ?? null };
  if (!beat) return warn("worker", `${who} but has recorded no pass: it is older than this checkout (restart it) or is starting`, detail);
  const every = `resync every ${beat.resyncSeconds} s`;
  if (beat.passAgeS === null) {
    if (beat.leadingForS <= passLateS(beat.resyncSeconds)) return ok("worker", `${who}; its first pass is running (${every})`, detail);
    return warn("worker", `${who} for ${seconds(beat.leadingForS * 1000)} and has not finished a pass: can it reach the Docker engine? see its log`, detail);
  }
  const age = `its last pass finished ${seconds(beat.passAgeS * 1000)} ago (${every})`;
  if (beat.passAgeS > passStuckS(beat.resyncSeconds)) return fail("worker", `${who} but ${age}: it is stuck; see its log and restart it`, detail);
  if (beat.passAgeS > passLateS(beat.resyncSeconds)) return warn("worker", `${who} but ${age}: it falls behind or cannot reach the Docker engine; see its log`, detail);
  return ok("worker", `${who}; ${age}`, detail);
}

export function workerCheck(p: DbProbe, lockName: string): Promise<CheckResult> {
  return withDb("worker", p, async () => {
    const [leader, beat] = await Promise.all([p.leader(), p.heartbeat()]);
    return workerVerdict(lockName, leader, beat);
  });
}

/** The longest gap between consecutive due times of `cron` after `from` (a weekday schedule's weekend counts). */
export function scheduleIntervalMs(cron: string, from: Date, runs = 8): number | null {
  let prev = nextDue(cron, from);
  if (!prev) return null;
  let longest = 0;
  for (let i = 0; i < runs; i++) {
    const next = nextDue(cron, prev);
    if (!next) break;
    longest = Math.max(longest, next.getTime() - prev.getTime());
    prev = next;
  }
  return longest || null;
}

const SHOWN = 5;

/** Pure: every scheduled database's last verified backup is younger than twice its schedule's interval. */
export function backupsVerdict(rows: BackupRow[], now: Date): CheckResult {
  const scheduled = rows.filter((r): r is BackupRow & { cron: string } => r.cron !== null);
  const stale: string[] = [];
  for (const r of scheduled) {
    const interval = scheduleIntervalMs(r.cron, now);
    if (interval === null) continue;
    const limit = 2 * interval;
    const every = `schedule \`${r.cron}\`, every ${seconds(interval)}`;
    if (r.lastVerifiedAt) {
      const age = now.getTime() - r.lastVerifiedAt.getTime();
      if (age > limit) stale.push(`${r.database}: last verified backup ${seconds(age)} ago (${every})`);
    } else {
      const since = now.getTime() - (r.scheduleSince ?? r.createdAt).getTime();
      if (since > limit) stale.push(`${r.database}: no verified backup since its schedule was set ${seconds(since)} ago (${every})`);
    }
  }
  const unscheduled = rows.length - scheduled.length;
  const detail = { databases: rows.length, scheduled: scheduled.length, stale };
  const others = unscheduled ? `; ${unscheduled} without a schedule` : "";
  if (stale.length) {
    const more = stale.length > SHOWN ? `; and ${stale.length - SHOWN} more` : "";
    return warn("backups", `${stale.slice(0, SHOWN).join("; ")}${more}: see each database's backups (failed or unverified ones say why)`, detail);
  }
  if (scheduled.length === 0) return ok("backups", rows.length ? `no database has a backup schedule (${rows.length} without one)` : "no managed databases", detail);
  return ok("backups", `every scheduled database (${scheduled.length}) has a verified backup younger than twice its schedule's interval${others}`, detail);
}

export function backupsCheck(p: DbProbe): Promise<CheckResult> {
  return withDb("backups", p, async () => {
    const { now, rows } = await p.backups();
    return backupsVerdict(rows, now);
  });
}
