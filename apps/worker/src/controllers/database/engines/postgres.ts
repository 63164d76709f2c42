import { randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import { UnusableContainerError, unusableContainerReason } from "@levelrail/docker";
import { postgresUrl, urlEncode as encode } from "@levelrail/spec/database";
import type { DatabaseCredentials, DatabaseEngine, ExecPort, HeldSnapshot, Inventory, OutputStream } from "../ports";
import { pgAccepting } from "./pg-wire";
import { INVENTORY_SQL, parseInventory } from "./postgres-inventory";
import { type PsqlLimits, PsqlSession } from "./psql-session";

/**
 * PostgreSQL, as the official `postgres` image runs it: `POSTGRES_USER`, `POSTGRES_PASSWORD`,
 * `POSTGRES_DB`, data in `/var/lib/postgresql/data`, port 5432. Every client runs inside the
 * database's own container by exec (argv, no shell) over the local socket, which the image trusts;
 * the password still goes along, only in the exec's env (`PGPASSWORD`), for images that do not.
 */

const PORT = 5432;
const DATA_PATH = "/var/lib/postgresql/data";
/** psql as a program reads it: no psqlrc, no banners or command tags, unaligned tuples only, stop at the first error. */
const PSQL = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"];
const BEGIN_SNAPSHOT = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;";

/**
 * What `pg_export_snapshot()` answers: `XXXXXXXX-XXXXXXXX-N` (PostgreSQL 10 and later; hex backend
 * id and local transaction id, then a counter) or `XXXXXXXX-N` (older servers).
 */
const SNAPSHOT_ID = /^[0-9A-F]{8}-(?:[0-9A-F]{8}-)?[0-9]{1,10}$/;

export function isSnapshotId(id: string): boolean {
  return SNAPSHOT_ID.test(id);
}


export function connectionUrl(creds: DatabaseCredentials, host: string): string {
  return postgresUrl(creds, host, PORT);
}

/**
 * The database as a libpq connection string (`dbname='…'`): a bare `-d` value that looks like a
 * connection string or URL would be read as one, so the name always goes in quoted.
 */
export function dbnameConninfo(database: string): string {
  return `dbname='${database.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/** An SQL identifier, quoted: any name the panel allows, hyphens included. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `text` with the password (as is and percent-encoded) replaced by `***`. */
export function redact(text: string, password: string): string {
  if (password === "") return text;
  let out = text.split(password).join("***");
  const encoded = encode(password);
  if (encoded !== password) out = out.split(encoded).join("***");
  return out;
}

/**
 * Who a client logs in as: user and database as arguments, the password in the env only; `app`
 * names its session; `host` (a pinned database's restore server, asked from its client container)
 * overrides the container's own `PGHOST`.
 */
function login(creds: DatabaseCredentials, app = "levelrail", host?: string): { args: string[]; env: string[] } {
  return {
    args: [`--username=${creds.user}`, `--dbname=${dbnameConninfo(creds.database)}`],
    env: [`PGPASSWORD=${creds.password}`, "PGCLIENTENCODING=UTF8", `PGAPPNAME=${app}`, ...(host ? [`PGHOST=${host}`] : [])],
  };
}

/** How much a client in the tenant's image may take: see `PsqlLimits`, and the deadline of one dump or restore. */
export interface EngineLimits extends Omit<PsqlLimits, "signal"> {
  /** The longest a dump or a restore may run (default 6 hours). */
  transferMs?: number;
  /** The most output of a readiness check kept (default 64 KiB; it prints nothing when well). */
  maxProbeBytes?: number;
}

export const TRANSFER_MS = 6 * 3_600_000;
export const MAX_PROBE_BYTES = 64 * 1024;

/** `signal` and a deadline of `ms`, whichever comes first. */
const within = (ms: number, signal?: AbortSignal) => (signal ? AbortSignal.any([signal, AbortSignal.timeout(ms)]) : AbortSignal.timeout(ms));

export function postgresEngine(runtime: ExecPort, limits: EngineLimits = {}): DatabaseEngine {
  const transferMs = limits.transferMs ?? TRANSFER_MS;
  const session = (containerId: string, creds: DatabaseCredentials, signal?: AbortSignal, host?: string) => {
    const { args, env } = login(creds, "levelrail", host);
    return PsqlSession.open(runtime, containerId, [...PSQL, ...args], env, (t) => redact(t, creds.password), { ...limits, ...(signal ? { signal } : {}) });
  };

  /** Terminates the server sessions named `app` (one of ours: `levelrail-dump-<hex>`, never a user's value). */
  const endSessions = async (containerId: string, creds: DatabaseCredentials, app: string) => {
    if (!/^levelrail-dump-[0-9a-f]+$/.test(app)) throw new Error("not a session name of ours");
    const psql = await session(containerId, creds);
    try {
      await psql.run(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '${app}';`);
    } finally {
      await psql.close();
    }
  };

  return {
    engine: "postgres",
    defaultImage: (version) => `postgres:${version}`,
    port: PORT,
    dataPath: DATA_PATH,
    containerEnv: (creds) => [
      `POSTGRES_USER=${creds.user}`,
      `POSTGRES_PASSWORD=${creds.password}`,
      `POSTGRES_DB=${creds.database}`,
      // From 18 on, the official image keeps its data under /var/lib/postgresql/<major>/docker and
      // refuses to start on a volume at the old path unless PGDATA names that path.
      `PGDATA=${DATA_PATH}`,
    ],
    connectionUrl,

    async ready(containerId, creds, signal, host = "127.0.0.1") {
      // Over TCP: while the image initialises a fresh volume, its temporary server listens on the socket only.
      // (`host`: a pinned database's server, asked from its client container.)
      const argv = ["pg_isready", "-q", "-h", host, "-p", String(PORT), `--username=${creds.user}`, `--dbname=${dbnameConninfo(creds.database)}`, "-t", "3"];
      // `-q` prints nothing: an image's pg_isready that talks on and on is stopped, not listened to.
      const max = limits.maxProbeBytes ?? MAX_PROBE_BYTES;
      const chatty = new AbortController();
      let printed = 0;
      const count = (text: string) => {
        printed += Buffer.byteLength(text);
        if (printed > max && !chatty.signal.aborted) chatty.abort(new Error(`pg_isready printed more than ${max} bytes; its output was truncated`));
      };
      try {
        let out = "";
        const collect = (text: string) => {
          count(text);
          out = (out + text).slice(-2048);
        };
        const { exitCode } = await runtime.exec(containerId, argv, collect, { signal: AbortSignal.any([signal, chatty.signal]) });
        if (exitCode === 0) return true;
        const unusable = unusableContainerReason(out);
        if (unusable) throw new UnusableContainerError(unusable);
        return false;
      } catch (err) {
        if (isNotRunning(err)) return false;
        throw err;
      }
    },

    handshake: (address, creds, signal) => pgAccepting(address, PORT, creds, signal),

    async holdSnapshot(containerId, creds, signal): Promise<HeldSnapshot> {
      const psql = await session(containerId, creds, signal);
      try {
        const answer = await psql.run(`${BEGIN_SNAPSHOT}\nSELECT pg_export_snapshot();`);
        const id = answer.length === 1 ? answer[0]! : "";
        if (!isSnapshotId(id)) throw new Error(`pg_export_snapshot() answered an unexpected snapshot id (${answer.length} lines)`);
        const inventory = parseInventory(await psql.run(INVENTORY_SQL));
        let closing: Promise<void> | null = null;
        return {
          id,
          inventory,
          // A read-only transaction: how it ends changes nothing, so closing only waits for psql to go.
          close: () => (closing ??= psql.close("COMMIT;").then(
            () => {},
            () => {},
          )),
        };
      } catch (err) {
        await psql.close().catch(() => {});
        throw err;
      }
    },

    async dump(containerId, creds, snapshotId, signal): Promise<OutputStream> {
      if (!isSnapshotId(snapshotId)) throw new Error("not a snapshot id pg_export_snapshot() gives");
      // Its own session name, so a dump whose reader gives up can be ended: the engine would let
      // pg_dump run to the end, holding its snapshot and its locks, with its output going nowhere.
      const app = `levelrail-dump-${randomBytes(8).toString("hex")}`;
      const { args, env } = login(creds, app);
      const out = await runtime.execStream(containerId, ["pg_dump", "-Fc", `--snapshot=${snapshotId}`, ...args], { env, signal: within(transferMs, signal) });
      out.stdout.once("close", () => {
        if (!out.stdout.readableEnded) void endSessions(containerId, creds, app).catch(() => {});
      });
      const done = out.done.then((r) => ({ ...r, stderrTail: redact(r.stderrTail, creds.password) }));
      done.catch(() => {});
      return { stdout: out.stdout, done };
    },

    async restore(containerId, creds, input: Readable, signal, host): Promise<void> {
      const { args, env } = login(creds, "levelrail", host);
      let out: OutputStream;
      try {
        out = await runtime.execStream(containerId, ["pg_restore", "--exit-on-error", "--no-owner", ...args], { env, stdin: input, signal: within(transferMs, signal) });
      } catch (err) {
        input.destroy();
        throw err;
      }
      out.stdout.resume(); // it restores into the server; whatever it prints there is not needed
      let result: { exitCode: number; stderrTail: string };
      try {
        result = await out.done;
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        throw new Error(`the dump could not be read: ${redact(reason, creds.password)}`, { cause: err });
      }
      if (result.exitCode !== 0) {
        throw new Error(`pg_restore failed (exit ${result.exitCode}): ${redact(result.stderrTail, creds.password).trim() || "no output"}`);
      }
    },

    async emptyDatabase(containerId, creds, signal, host): Promise<void> {
      // From another database (one cannot drop the database it is connected to); a fresh copy of
      // template0, which no session can hold (template1 may be the one connected to).
      const psql = await session(containerId, { ...creds, database: creds.database === "postgres" ? "template1" : "postgres" }, signal, host);
      try {
        const name = quoteIdent(creds.database);
        await psql.run(`DROP DATABASE IF EXISTS ${name};`);
        await psql.run(`CREATE DATABASE ${name} TEMPLATE template0;`);
      } finally {
        await psql.close().catch(() => {});
      }
    },

    async inventory(containerId, creds, signal, host): Promise<Inventory> {
      const psql = await session(containerId, creds, signal, host);
      try {
        return parseInventory(await psql.run(`${BEGIN_SNAPSHOT}\n${INVENTORY_SQL}`));
      } finally {
        await psql.close("COMMIT;").catch(() => {});
      }
    },
  };
}

/** The engine refused an exec because the container is not running (or is restarting, paused). */
function isNotRunning(err: unknown): boolean {
  return typeof err === "object" && err !== null && "statusCode" in err && err.statusCode === 409;
}
