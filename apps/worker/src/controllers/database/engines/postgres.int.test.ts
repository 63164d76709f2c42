import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, stat, truncate, copyFile, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { dockerRuntime } from "@levelrail/docker";
import { ensurePostgresImage, POSTGRES_TEST_IMAGE } from "@levelrail/testkit/postgres-image";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseCredentials, Inventory } from "../ports";
import { postgresEngine } from "./postgres";

// The PostgreSQL engine against the real Docker engine and the PostgreSQL test image (which follows
// the official image's conventions): a dump taken from a held snapshot while rows keep coming,
// streamed to disk, restored from the file into another server, and compared.
const runtime = dockerRuntime({ dockerHost: process.env.DOCKER_HOST });
const { docker } = runtime;
const engine = postgresEngine(runtime);
const run = `${process.env.LEVELRAIL_SHORT_NAME ?? "lrtest"}-pgeng-${randomBytes(3).toString("hex")}`;
const LABELS = { "levelrail.test": "true", "levelrail.test.run": run };
const PASSWORD = `pw ${randomBytes(9).toString("base64url")}'"@:/%`;
const creds: DatabaseCredentials = { user: "shop", password: PASSWORD, database: "shop-db" };
const made: string[] = [];
let dir = "";

/** A database server on a fresh named volume, as the controller makes one. */
async function server(name: string): Promise<string> {
  const volume = `${run}-${name}`;
  await runtime.createVolume(volume, LABELS);
  const c = await docker.createContainer({
    name: `${run}-${name}`,
    Image: POSTGRES_TEST_IMAGE,
    Env: engine.containerEnv(creds),
    Labels: LABELS,
    HostConfig: { Binds: [`${volume}:${engine.dataPath}`] },
  });
  made.push(c.id);
  await c.start();
  const deadline = Date.now() + 60_000;
  while (!(await engine.ready(c.id, creds, AbortSignal.timeout(10_000)))) {
    if (Date.now() > deadline) throw new Error(`${name} never became ready`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return c.id;
}

/** Runs SQL through psql on the socket (stdin, not argv, so the test's SQL is never a command line). */
async function sql(id: string, text: string, database = creds.database): Promise<string> {
  const out = await runtime.execStream(id, ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", `--username=${creds.user}`, `--dbname=dbname='${database}'`], {
    stdin: Readable.from([text]),
  });
  const text_ = Buffer.concat(await out.stdout.toArray()).toString();
  const { exitCode, stderrTail } = await out.done;
  if (exitCode !== 0) throw new Error(`psql: ${stderrTail}`);
  return text_;
}

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("the condition never held");
    await new Promise((r) => setTimeout(r, 100));
  }
}

const ODD = `"My Schema"."odd ""name""
with a newline"`;

let source = "";
let target = "";
let held: Inventory;
let dumpFile = "";

beforeAll(async () => {
  await ensurePostgresImage(docker);
  dir = await mkdtemp(join(tmpdir(), `${run}-`));
  source = await server("src");
  await sql(
    source,
    `CREATE TABLE item (id int PRIMARY KEY, name text NOT NULL, note text);
     CREATE INDEX item_name ON item (name);
     INSERT INTO item SELECT g, 'n' || g FROM generate_series(1, 1000) g;
     CREATE SCHEMA "My Schema";
     CREATE TABLE ${ODD} ("we""ird col" text CHECK ("we""ird col" <> 'x'), "sp ace" int);
     INSERT INTO ${ODD} SELECT 'v' || g, g FROM generate_series(1, 7) g;
     CREATE TABLE empty (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY);
     CREATE TABLE filler (id int, body text);
     INSERT INTO filler SELECT g, md5(g::text) || md5((g * 7)::text) FROM generate_series(1, 150000) g;`,
  );
});

afterAll(async () => {
  for (const id of made) await docker.getContainer(id).remove({ force: true, v: true }).catch(() => {});
  for (const v of await runtime.listVolumes([`levelrail.test.run=${run}`])) await runtime.removeVolume(v.name).catch(() => {});
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the PostgreSQL engine", () => {
  it("holds a snapshot, dumps exactly it to disk while rows keep coming, and counts it", async () => {
    const snap = await engine.holdSnapshot(source, creds);
    try {
      expect(snap.id).toMatch(/^[0-9A-F]{8}-[0-9A-F]{8}-\d+$/);
      expect(snap.inventory.tables).toEqual({
        [`"My Schema"."odd ""name""\nwith a newline"`]: 7,
        "public.empty": 0,
        "public.filler": 150000,
        "public.item": 1000,
      });
      expect(snap.inventory.schema).toContain("column public.item name text not null");
      expect(snap.inventory.schema).toContain(`column "My Schema"."odd ""name""\nwith a newline" "we""ird col" text`);
      expect(snap.inventory.schema).toContain("index public.item CREATE INDEX item_name ON public.item USING btree (name)");
      expect(snap.inventory.schema.some((l) => l.startsWith("constraint public.item item_pkey PRIMARY KEY (id)"))).toBe(true);
      expect(snap.inventory.schema).toEqual([...snap.inventory.schema].sort());

      // another session writes while the snapshot is held: committed, but not in the snapshot
      await sql(source, "INSERT INTO item SELECT g, 'late' FROM generate_series(1001, 1500) g;");

      const out = await engine.dump(source, creds, snap.id);
      dumpFile = join(dir, "source.dump");
      await pipeline(out.stdout, createWriteStream(dumpFile));
      const { exitCode, stderrTail } = await out.done;
      expect({ exitCode, stderrTail }).toEqual({ exitCode: 0, stderrTail: "" });
      held = snap.inventory;
    } finally {
      await snap.close();
      await snap.close(); // twice is fine
    }
    const size = (await stat(dumpFile)).size;
    console.log(`pg_dump -Fc of the source: ${(size / 1024 / 1024).toFixed(1)} MiB`);
    expect(size).toBeGreaterThan(2 * 1024 * 1024); // multi-megabyte: the restore below exercises stdin's half-close
    expect((await engine.inventory(source, creds)).tables["public.item"]).toBe(1500);
  });

  it("restores the file, streamed, into an empty server: its inventory is the snapshot's, not the source's now", async () => {
    target = await server("dst");
    const t0 = performance.now();
    await engine.restore(target, creds, createReadStream(dumpFile));
    console.log(`restore: ${((performance.now() - t0) / 1000).toFixed(1)}s`);
    const restored = await engine.inventory(target, creds);
    expect(restored).toEqual(held);
    expect(restored).not.toEqual(await engine.inventory(source, creds));
  });

  it("a database a restore filled (or half filled) is emptied and restored again whole, its owner the same", async () => {
    // What a retried restore meets on a volume it cannot remove (a pinned database's node): without
    // emptying it first, pg_restore stops at the first object that exists.
    await expect(engine.restore(target, creds, createReadStream(dumpFile))).rejects.toThrow(/already exists/);
    await engine.emptyDatabase(target, creds);
    expect((await engine.inventory(target, creds)).tables).toEqual({});
    expect((await sql(target, `SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = '${creds.database}'`, "postgres")).trim()).toBe(creds.user);
    await engine.restore(target, creds, createReadStream(dumpFile));
    expect(await engine.inventory(target, creds)).toEqual(held);
  });

  describe("a restore that cannot succeed rejects with pg_restore's reason (never the password)", () => {
    let n = 0;
    /** A fresh empty database in the target server, the same login. */
    const scratch = async (): Promise<DatabaseCredentials> => {
      const database = `scratch${++n}`;
      await sql(target, `CREATE DATABASE ${database};`);
      return { ...creds, database };
    };

    it("a truncated dump", async () => {
      const cut = join(dir, "cut.dump");
      await copyFile(dumpFile, cut);
      await truncate(cut, Math.floor((await stat(cut)).size / 2));
      const err = await engine.restore(target, await scratch(), createReadStream(cut)).then(() => null, (e: Error) => e);
      expect(err?.message).toMatch(/^pg_restore failed \(exit 1\): .*pg_restore: error/s);
      expect(err?.message).not.toContain(PASSWORD);
    });

    it("bytes flipped in the middle of the dump", async () => {
      const bad = join(dir, "flipped.dump");
      await copyFile(dumpFile, bad);
      const f = await open(bad, "r+");
      await f.write(randomBytes(4096), 0, 4096, Math.floor((await f.stat()).size / 3));
      await f.close();
      // whatever pg_restore makes of it (a bad length reads as "out of memory", a bad block as a zlib error), it is its reason
      await expect(engine.restore(target, await scratch(), createReadStream(bad))).rejects.toThrow(/^pg_restore failed \(exit 1\): \S/);
    });

    it("something that is no dump at all", async () => {
      await expect(engine.restore(target, await scratch(), Readable.from([randomBytes(3 * 1024 * 1024)]))).rejects.toThrow(
        /pg_restore failed \(exit 1\): .*does not appear to be a valid archive/s,
      );
    });

    it("an input that fails half way (a download broken off): its error, not a hang", async () => {
      const into = await scratch();
      const input = new Readable({ read() {} });
      const file = createReadStream(dumpFile, { end: 1024 * 1024 });
      file.on("data", (chunk) => input.push(chunk));
      file.on("end", () => setTimeout(() => input.destroy(new Error("the download broke off")), 100));
      await expect(engine.restore(target, into, input)).rejects.toThrow("the dump could not be read: the download broke off");
    });
  });

  it("a dump whose reader gives up is ended in the server, not left running with its snapshot and locks", async () => {
    const dumping = "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'levelrail-dump-%'";
    const snap = await engine.holdSnapshot(source, creds);
    // A session queues for an exclusive lock behind the snapshot's share locks, so pg_dump's own
    // share lock queues behind it: the dump is stuck, and would stay stuck unless ended.
    const locker = new PassThrough();
    const lock = await runtime.execStream(source, ["psql", "-X", "-q", `--username=${creds.user}`, `--dbname=dbname='${creds.database}'`], { stdin: locker });
    lock.stdout.resume();
    locker.write("BEGIN; LOCK TABLE filler IN ACCESS EXCLUSIVE MODE;\n");
    try {
      await until(async () => (await sql(source, "SELECT count(*) FROM pg_locks WHERE NOT granted AND mode = 'AccessExclusiveLock';")).trim() === "1");
      const out = await engine.dump(source, creds, snap.id);
      await until(async () => (await sql(source, `${dumping} AND wait_event_type = 'Lock';`)).trim() === "1");
      out.stdout.destroy(); // the upload failed, say
      await expect(out.done).rejects.toThrow("abandoned");
      await until(async () => (await sql(source, `${dumping};`)).trim() === "0");
    } finally {
      await snap.close();
      locker.end();
      await lock.done;
    }
  });

  it("dump refuses what is not a snapshot id, and reports one the server does not know", async () => {
    await expect(engine.dump(source, creds, "x'; DROP TABLE item; --")).rejects.toThrow("not a snapshot id");
    const out = await engine.dump(source, creds, "00000003-0000FFFF-1");
    out.stdout.resume();
    const { exitCode, stderrTail } = await out.done;
    expect(exitCode).not.toBe(0);
    expect(stderrTail).toMatch(/snapshot/);
  });

  it("the worker's own handshake over TCP says what pg_isready says, with no client of the image run", async () => {
    const address = (await runtime.inspectContainer(source))!.addresses.bridge!;
    expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const calls: string[] = [];
    const watched = postgresEngine({ exec: (...a) => (calls.push("exec"), runtime.exec(...a)), execStream: (...a) => (calls.push("exec"), runtime.execStream(...a)) });
    expect(await watched.handshake!(address, creds, AbortSignal.timeout(5_000))).toBe(true);
    expect(await watched.handshake!(address, { ...creds, user: "nobody" }, AbortSignal.timeout(5_000))).toBe(true); // refused login: still accepting, as PQping says
    expect(calls).toEqual([]);
  });

  it("ready is false for a stopped server, and the password is never in the container's logs", async () => {
    const logs = (await docker.getContainer(source).logs({ stdout: true, stderr: true })).toString("latin1");
    expect(logs).not.toContain(PASSWORD);
    await docker.getContainer(target).stop({ t: 10 });
    expect(await engine.ready(target, creds, AbortSignal.timeout(10_000))).toBe(false);
  });
});
