import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import type Docker from "dockerode";
import { pack } from "tar-stream";
import { BUSYBOX } from "./images";

/**
 * A PostgreSQL image for tests, named and behaving like the official `postgres:15` (same env,
 * paths, port, user and stop signal), built `FROM scratch` from Debian's PostgreSQL 15 on the host:
 * the binaries, the libraries they link (found with `ldd`), the share files, the time zones, the
 * static busybox and a small entrypoint. No registry needed; product code cannot tell it apart.
 */
export const POSTGRES_TEST_IMAGE = "levelrail-test/postgres:15";
/** The image label holding the hash of everything that went into it (rebuilt when it changes). */
export const POSTGRES_IMAGE_INPUTS_LABEL = "levelrail.test.inputs";

const PG = "/usr/lib/postgresql/15";
const BINARIES = ["postgres", "initdb", "pg_ctl", "pg_dump", "pg_dumpall", "pg_restore", "psql", "pg_isready"];
/** Loaded on demand only: the JIT pulls in LLVM (100+ MB), and the server runs fine without it. */
const SKIP_LIBS = /^llvmjit|^bitcode$/;
const TREES = ["/usr/share/postgresql/15", "/usr/share/zoneinfo"];
const APPLETS = ["sh", "cat", "chmod", "chown", "env", "id", "ls", "mkdir", "mktemp", "rm", "sed", "sleep", "su"];
const DPKG_STATUS = "/var/lib/dpkg/status";
/** Shared with the panel's own PostgreSQL image (`levelrail install`, scripts/install/images.ts). */
const ENTRYPOINT = new URL("../../../scripts/lib/postgres-entrypoint.sh", import.meta.url);

const PASSWD = "root:x:0:0:root:/root:/bin/sh\npostgres:x:999:999:PostgreSQL administrator:/var/lib/postgresql:/bin/sh\n";
const GROUP = "root:x:0:\npostgres:x:999:\n";

/** Shared with the panel's own PostgreSQL image, like the entrypoint. */
const DOCKERFILE = readFileSync(new URL("../../../scripts/lib/postgres.Dockerfile", import.meta.url), "utf8").replaceAll("@PG_BIN@", `${PG}/bin`);

/** One entry of the image: a host file copied to `dest`, a symlink, or a directory. */
type Entry =
  | { kind: "file"; dest: string; src: string; mode: number }
  | { kind: "symlink"; dest: string; target: string }
  | { kind: "dir"; dest: string; mode: number };

/** Every file and symlink under `dir`, at the same path in the image. */
function tree(dir: string): Entry[] {
  const out: Entry[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const st = lstatSync(path);
    if (st.isSymbolicLink()) out.push({ kind: "symlink", dest: path, target: readlinkSync(path) });
    else if (st.isDirectory()) out.push(...tree(path));
    else if (st.isFile()) out.push({ kind: "file", dest: path, src: path, mode: st.mode & 0o7777 });
  }
  return out;
}

/** The shared libraries `files` load, at the paths the loader names them (the loader has no cache here). */
async function linked(files: readonly string[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)("ldd", [...files], { maxBuffer: 16 * 1024 * 1024 });
  const libs = new Set<string>();
  for (const line of stdout.split("\n")) {
    const m = /^\s+(?:\S+ => )?(\/\S+) \(0x[0-9a-f]+\)$/.exec(line);
    if (m?.[1]) libs.add(m[1]);
    else if (/not found/.test(line)) throw new Error(`ldd: ${line.trim()}`);
  }
  return [...libs].sort();
}

/** The PostgreSQL binaries and server modules that go into the image. */
function serverFiles(): { bins: string[]; modules: string[] } {
  const bins = BINARIES.map((b) => `${PG}/bin/${b}`);
  const modules = existsSync(`${PG}/lib`)
    ? readdirSync(`${PG}/lib`)
        .filter((n) => n.endsWith(".so") && !SKIP_LIBS.test(n))
        .sort()
        .map((n) => `${PG}/lib/${n}`)
    : [];
  return { bins, modules };
}

/** What goes into the image (besides the Dockerfile), read from the host. */
async function entries(): Promise<Entry[]> {
  for (const need of [BUSYBOX, `${PG}/bin/postgres`, ...TREES]) {
    if (!existsSync(need)) throw new Error(`${need} is missing: install Debian's postgresql-15 and busybox-static packages`);
  }
  const { bins, modules } = serverFiles();
  const file = (src: string, dest = src): Entry => ({ kind: "file", dest, src, mode: statSync(src).mode & 0o777 });
  return [
    { kind: "dir", dest: "/tmp", mode: 0o1777 },
    { kind: "dir", dest: "/var/run/postgresql", mode: 0o2775 },
    { kind: "dir", dest: "/var/lib/postgresql/data", mode: 0o700 },
    file(BUSYBOX, "/bin/busybox"),
    ...APPLETS.map((a): Entry => ({ kind: "symlink", dest: `/bin/${a}`, target: "busybox" })),
    ...bins.map((b) => file(b)),
    ...modules.map((m) => file(m)),
    ...(await linked([...bins, ...modules])).map((l) => file(l)),
    ...TREES.flatMap(tree),
  ];
}

/**
 * A hash of the inputs: the Dockerfile, entrypoint and accounts, and the size and modification time
 * of busybox, the binaries, the server's modules and Debian's package database (which changes
 * whenever a package, so any library they link or share file, is installed or upgraded). Cheap: no
 * `ldd`, no walking the share trees.
 */
function inputsHash(entrypoint: Buffer): string {
  const h = createHash("sha256").update(DOCKERFILE).update(entrypoint).update(PASSWD).update(GROUP);
  const { bins, modules } = serverFiles();
  for (const path of [BUSYBOX, DPKG_STATUS, ...bins, ...modules]) {
    const st = existsSync(path) ? statSync(path) : null;
    h.update(`${path} ${st?.size ?? "-"} ${st?.mtimeMs ?? "-"} ${st ? st.mode & 0o7777 : "-"}\n`);
  }
  return h.digest("hex").slice(0, 32);
}

async function context(list: readonly Entry[], entrypoint: Buffer): Promise<Buffer> {
  const tar = pack();
  const rel = (p: string) => p.replace(/^\//, "");
  tar.entry({ name: "Dockerfile" }, DOCKERFILE);
  tar.entry({ name: ".dockerignore" }, "Dockerfile\n.dockerignore\n");
  tar.entry({ name: "etc/passwd" }, PASSWD);
  tar.entry({ name: "etc/group" }, GROUP);
  tar.entry({ name: "usr/local/bin/docker-entrypoint.sh", mode: 0o755 }, entrypoint);
  for (const e of list) {
    if (e.kind === "dir") tar.entry({ name: rel(e.dest), type: "directory", mode: e.mode });
    else if (e.kind === "symlink") tar.entry({ name: rel(e.dest), type: "symlink", linkname: e.target });
    else tar.entry({ name: rel(e.dest), mode: e.mode }, readFileSync(e.src));
  }
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of tar) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Builds {@link POSTGRES_TEST_IMAGE} unless the engine has it built from the same inputs (then it
 * costs a few `stat`s and one inspect); returns the image id.
 */
export async function ensurePostgresImage(docker: Docker): Promise<string> {
  const entrypoint = readFileSync(ENTRYPOINT);
  const hash = inputsHash(entrypoint);
  let stale: string | null = null;
  try {
    const have = await docker.getImage(POSTGRES_TEST_IMAGE).inspect();
    if (have.Config.Labels?.[POSTGRES_IMAGE_INPUTS_LABEL] === hash) return have.Id;
    stale = have.Id;
  } catch {
    // not there yet: build it
  }
  const labels = { "levelrail.test": "true", [POSTGRES_IMAGE_INPUTS_LABEL]: hash };
  const stream = await docker.buildImage(Readable.from([await context(await entries(), entrypoint)]), {
    t: POSTGRES_TEST_IMAGE,
    rm: true,
    forcerm: true,
    labels,
  });
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => {
      const bad = out?.find((o) => o.error);
      if (err || bad) reject(err ?? new Error(bad?.error));
      else resolve();
    });
  });
  const id = (await docker.getImage(POSTGRES_TEST_IMAGE).inspect()).Id;
  // the build from older inputs is untagged now; a container still using it keeps it
  if (stale && stale !== id) await docker.getImage(stale).remove().catch(() => {});
  return id;
}
