// Images built on this host, `FROM scratch`, from the host's own binaries and the libraries they
// link: no registry is needed (none may be reachable). Each image carries a label with a hash of
// its inputs; a build is skipped when the engine already has the tag built from the same inputs.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, readdirSync, readlinkSync, statSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pack } from "tar-stream";

/** The image label holding the hash of everything that went into it. */
export const INPUTS_LABEL = "levelrail.image.inputs";

/**
 * @typedef {{ kind: "file", dest: string, src?: string, content?: string | Buffer, mode?: number }
 *   | { kind: "symlink", dest: string, target: string }
 *   | { kind: "dir", dest: string, mode: number }} Entry
 */

/** A host file copied to the same path (or `dest`) in the image, keeping its mode. */
export const hostFile = (src, dest = src) => ({ kind: "file", dest, src, mode: statSync(src).mode & 0o7777 });

/** Every file and symlink under a host directory, at the same path in the image (or under `dest`). */
export function hostTree(dir, dest = dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const to = join(dest, name);
    const st = lstatSync(path);
    if (st.isSymbolicLink()) out.push({ kind: "symlink", dest: to, target: readlinkSync(path) });
    else if (st.isDirectory()) out.push(...hostTree(path, to));
    else if (st.isFile()) out.push({ kind: "file", dest: to, src: path, mode: st.mode & 0o7777 });
  }
  return out;
}

/** The shared libraries `files` load (and the loader), at the paths the loader names them. */
export function linkedLibraries(files) {
  const out = execFileSync("ldd", [...files], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 });
  const libs = new Set();
  for (const line of out.split("\n")) {
    const m = /^\s+(?:\S+ => )?(\/\S+) \(0x[0-9a-f]+\)$/.exec(line);
    if (m?.[1]) libs.add(m[1]);
    else if (/not found/.test(line)) throw new Error(`ldd: ${line.trim()}`);
  }
  return [...libs].sort().map((l) => hostFile(l));
}

/** The minimal accounts and folders every image gets. */
export const BASE_ENTRIES = [
  { kind: "dir", dest: "/tmp", mode: 0o1777 },
  { kind: "file", dest: "/etc/passwd", content: "root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" },
  { kind: "file", dest: "/etc/group", content: "root:x:0:\nnogroup:x:65534:\n" },
];

/**
 * A hash of what goes in: the Dockerfile, inline contents, and each host file's path, size, mode
 * and modification time (cheap: no file is read for it).
 */
export function inputsHash(dockerfile, entries) {
  const h = createHash("sha256").update(dockerfile);
  for (const e of entries) {
    if (e.kind === "file" && e.src) {
      const st = statSync(e.src);
      h.update(`f ${e.dest} ${e.src} ${st.size} ${st.mtimeMs} ${e.mode}\n`);
    } else if (e.kind === "file") h.update(`c ${e.dest} ${e.mode ?? 0o644}\n`).update(e.content ?? "");
    else if (e.kind === "symlink") h.update(`l ${e.dest} ${e.target}\n`);
    else h.update(`d ${e.dest} ${e.mode}\n`);
  }
  return h.digest("hex").slice(0, 16);
}

async function context(dockerfile, entries) {
  const tar = pack();
  const rel = (p) => p.replace(/^\//, "");
  tar.entry({ name: "Dockerfile" }, dockerfile);
  tar.entry({ name: ".dockerignore" }, "Dockerfile\n.dockerignore\n");
  const seen = new Set();
  for (const e of entries) {
    if (seen.has(e.dest)) continue; // a library two binaries link
    seen.add(e.dest);
    if (e.kind === "dir") tar.entry({ name: rel(e.dest), type: "directory", mode: e.mode });
    else if (e.kind === "symlink") tar.entry({ name: rel(e.dest), type: "symlink", linkname: e.target });
    else tar.entry({ name: rel(e.dest), mode: e.mode ?? 0o644 }, e.src ? readFileSync(e.src) : e.content);
  }
  tar.finalize();
  const chunks = [];
  for await (const chunk of tar) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * The image `tag` built from `dockerfile` (which starts `FROM scratch` and `COPY . /`) and
 * `entries` (a function, called only when a build is needed), unless the engine has it from the
 * same inputs already; `hashEntries` are what the inputs hash covers (default: all of `entries()`).
 * Returns `{ id, built }`.
 */
export async function ensureImage(docker, { tag, dockerfile, entries, hashOf, labels = {}, log = () => {} }) {
  const hash = hashOf ?? inputsHash(dockerfile, entries());
  let stale = null;
  try {
    const have = await docker.getImage(tag).inspect();
    if (have.Config?.Labels?.[INPUTS_LABEL] === hash) return { id: have.Id, built: false };
    stale = have.Id;
  } catch {
    // not there yet
  }
  log(`building image ${tag}`);
  const stream = await docker.buildImage(Readable.from([await context(dockerfile, entries())]), {
    t: tag,
    rm: true,
    forcerm: true,
    labels: { ...labels, [INPUTS_LABEL]: hash },
  });
  await new Promise((resolve, reject) => {
    docker.modem.followProgress(stream, (err, out) => {
      const bad = out?.find((o) => o.error);
      if (err || bad) reject(err ?? new Error(bad.error));
      else resolve();
    });
  });
  const id = (await docker.getImage(tag).inspect()).Id;
  if (stale && stale !== id) await docker.getImage(stale).remove().catch(() => {}); // in use: kept until it is not
  return { id, built: true };
}

