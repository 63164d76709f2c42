import { randomBytes } from "node:crypto";
import { PassThrough } from "node:stream";
import Docker from "dockerode";
import postgres from "postgres";
import { pack } from "tar-stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensurePostgresImage, POSTGRES_TEST_IMAGE } from "./postgres-image";

// The test image under exactly what the worker gives a database container (limits.ts, role "database").
const docker = new Docker();
const short = process.env.LEVELRAIL_SHORT_NAME ?? "lrtest";
const run = `${short}-pgimg-${randomBytes(3).toString("hex")}`;
const volume = `${run}-data`;
const USER = "shop";
const DB = "shopdb";
const PASSWORD = `pw ${randomBytes(9).toString("base64url")}'"`;
const made: Docker.Container[] = [];

const ENV = [`POSTGRES_USER=${USER}`, `POSTGRES_PASSWORD=${PASSWORD}`, `POSTGRES_DB=${DB}`];

/** A database container on the named volume (or, with `data: null`, on the anonymous one the image's VOLUME makes). */
async function start(name: string, env: string[] = ENV, data: string | null = volume) {
  const c = await docker.createContainer({
    name,
    Image: POSTGRES_TEST_IMAGE,
    Env: env,
    Labels: { "levelrail.test": "true" },
    HostConfig: {
      Binds: data ? [`${data}:/var/lib/postgresql/data`] : [],
      CapDrop: ["ALL"],
      CapAdd: ["CHOWN", "DAC_OVERRIDE", "FOWNER", "SETGID", "SETUID"],
      SecurityOpt: ["no-new-privileges:true"],
      PidsLimit: 4096,
    },
  });
  made.push(c);
  await c.start();
  return c;
}

async function ip(c: Docker.Container): Promise<string> {
  const info = await c.inspect();
  const addr = Object.values(info.NetworkSettings.Networks)[0]?.IPAddress;
  if (!addr) throw new Error("container has no address");
  return addr;
}

function connect(host: string, password = PASSWORD) {
  return postgres({ host, port: 5432, user: USER, password, database: DB, max: 1, connect_timeout: 3, onnotice: () => {} });
}

/** Waits until the server accepts TCP connections (it listens only on its socket while initialising). */
async function ready(c: Docker.Container): Promise<string> {
  const host = await ip(c);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const sql = connect(host);
    try {
      await sql`select 1`;
      return host;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      await sql.end({ timeout: 1 });
    }
  }
}

async function exec(c: Docker.Container, cmd: string[]): Promise<{ code: number | null; out: Buffer; err: string }> {
  const e = await c.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true });
  const stream = await e.start({});
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const o = new PassThrough().on("data", (b: Buffer) => out.push(b));
  const r = new PassThrough().on("data", (b: Buffer) => err.push(b));
  docker.modem.demuxStream(stream, o, r);
  await new Promise<void>((resolve, reject) => stream.on("end", resolve).on("error", reject));
  return { code: (await e.inspect()).ExitCode, out: Buffer.concat(out), err: Buffer.concat(err).toString() };
}

async function logs(c: Docker.Container): Promise<string> {
  return (await c.logs({ stdout: true, stderr: true, follow: false })).toString("latin1");
}

async function putFile(c: Docker.Container, path: string, content: Buffer): Promise<void> {
  const tar = pack();
  tar.entry({ name: path.replace(/^\//, ""), mode: 0o644 }, content);
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of tar) chunks.push(chunk as Buffer);
  await c.putArchive(Buffer.concat(chunks), { path: "/" });
}

const INIT = "PostgreSQL init process complete";

describe("the PostgreSQL test image", () => {
  let first: Docker.Container;
  let host: string;
  let dumped: Buffer = Buffer.alloc(0);

  beforeAll(async () => {
    await ensurePostgresImage(docker);
    await docker.createVolume({ Name: volume, Labels: { "levelrail.test": "true" } });
  });

  afterAll(async () => {
    for (const c of made) await c.remove({ force: true, v: true }).catch(() => {});
    await docker.getVolume(volume).remove().catch(() => {});
  });

  it("is idempotent: a second ensure finds the image it built", async () => {
    const id = (await docker.getImage(POSTGRES_TEST_IMAGE).inspect()).Id;
    const t0 = performance.now();
    expect(await ensurePostgresImage(docker)).toBe(id);
    expect(performance.now() - t0).toBeLessThan(2_000);
  });

  it("initialises the volume from the env and serves as postgres (uid 999) over the bridge", async () => {
    first = await start(`${run}-a`);
    host = await ready(first);
    const sql = connect(host);
    try {
      await sql`create table item (id int primary key, name text not null)`;
      await sql`insert into item select g, 'n' || g from generate_series(1, 100) g`;
      const [who] = await sql<{ user: string; db: string }[]>`select current_user as user, current_database() as db`;
      expect(who).toEqual({ user: USER, db: DB });
    } finally {
      await sql.end();
    }
    const status = await exec(first, ["cat", "/proc/1/status"]);
    expect(status.out.toString()).toMatch(/^Uid:\s+999\s+999/m);
    expect((await exec(first, ["ls", "-ldn", "/var/lib/postgresql/data"])).out.toString()).toMatch(/^drwx------\s+\d+\s+999\s+999 /);
    const text = await logs(first);
    expect(text.split(INIT).length - 1).toBe(1);
    expect(text).not.toContain(PASSWORD);
  });

  it("refuses a wrong password", async () => {
    const sql = connect(host, "wrong");
    try {
      await expect(sql`select 1`).rejects.toMatchObject({ code: "28P01" });
    } finally {
      await sql.end();
    }
  });

  it("dumps with pg_dump -Fc by exec, and pg_restore --list reads the dump", async () => {
    const dump = await exec(first, ["pg_dump", "-Fc", "--username", USER, "--dbname", DB]);
    expect(dump.code).toBe(0);
    expect(dump.out.subarray(0, 5).toString()).toBe("PGDMP");
    dumped = dump.out;
    // the bytes that came out go back in as a file, and pg_restore reads them
    await putFile(first, "/tmp/check.dump", dumped);
    const list = await exec(first, ["pg_restore", "--list", "/tmp/check.dump"]);
    expect(list.code).toBe(0);
    expect(list.out.toString()).toMatch(/TABLE DATA public item /);
  });

  it("restores the dump into a throwaway container of the same image", async () => {
    const scratch = await start(`${run}-restore`, ENV, null);
    try {
      await ready(scratch);
      await putFile(scratch, "/tmp/in.dump", dumped);
      const restore = await exec(scratch, ["pg_restore", "--exit-on-error", "--username", USER, "--dbname", DB, "/tmp/in.dump"]);
      expect(restore.err).toBe("");
      expect(restore.code).toBe(0);
      const count = await exec(scratch, ["psql", "-tA", "--username", USER, "--dbname", DB, "-c", "select count(*) from item"]);
      expect(count.out.toString().trim()).toBe("100");
    } finally {
      await scratch.remove({ force: true, v: true });
      made.splice(made.indexOf(scratch), 1);
    }
  });

  it("stops cleanly and fast, keeps its data over a restart and does not initialise again", async () => {
    const t0 = performance.now();
    await first.stop({ t: 30 });
    const stopMs = performance.now() - t0;
    const stopped = await first.inspect();
    expect(stopped.State.ExitCode).toBe(0);
    expect(await logs(first)).toContain("database system is shut down");
    expect(stopMs).toBeLessThan(10_000);
    await first.start();
    host = await ready(first);
    const sql = connect(host);
    try {
      expect((await sql`select count(*)::int as n from item`)[0]?.n).toBe(100);
    } finally {
      await sql.end();
    }
    expect((await logs(first)).split(INIT).length - 1).toBe(1);
  });

  it("a new container on the same volume has the data; the env no longer matters", async () => {
    await first.remove({ force: true, v: true });
    made.splice(made.indexOf(first), 1);
    const second = await start(`${run}-b`, [`POSTGRES_USER=${USER}`, `POSTGRES_PASSWORD=ignored-now`, `POSTGRES_DB=${DB}`]);
    const sql = connect(await ready(second));
    try {
      expect((await sql`select count(*)::int as n from item`)[0]?.n).toBe(100);
    } finally {
      await sql.end();
    }
    expect(await logs(second)).not.toContain(INIT);
  });

  it("refuses to initialise without a password", async () => {
    for (const c of made.splice(0)) await c.remove({ force: true, v: true }).catch(() => {});
    await docker.getVolume(volume).remove();
    const c = await start(`${run}-c`, [`POSTGRES_USER=${USER}`]);
    const { StatusCode } = (await c.wait()) as { StatusCode: number };
    expect(StatusCode).not.toBe(0);
    expect(await logs(c)).toContain("POSTGRES_PASSWORD is not set");
  });
});
