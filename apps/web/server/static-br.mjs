// The build's static files (/_next/static/…: JavaScript, CSS, fonts) sent brotli-compressed to
// browsers that accept it. Next compresses every response with gzip as it sends it; brotli at its
// highest quality is about 15 % smaller on this JavaScript, but too slow to run per request, so
// `precompress` writes `<file>.br` beside each file once, after `next build`, and `brotliStatic`
// answers from those. A file without its `.br`, or a browser that does not accept br, is Next's.
// The names under /_next/static carry their content's hash, so a file read once is kept.
import { readdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants } from "node:zlib";

const compress = promisify(brotliCompress);

/** Content types of what /_next/static holds that compresses (images other than SVG and woff2 fonts already are). */
const TYPES = {
  ".js": "application/javascript; charset=UTF-8",
  ".mjs": "application/javascript; charset=UTF-8",
  ".css": "text/css; charset=UTF-8",
  ".json": "application/json; charset=UTF-8",
  ".map": "application/json; charset=UTF-8",
  ".svg": "image/svg+xml",
  ".txt": "text/plain; charset=UTF-8",
};

/** Smaller files gain less from brotli than a response's headers weigh: they get no `.br`. */
export const MIN_BYTES = 1024;

/** The brotli parameters of a `.br` copy of a `length`-byte text file: the highest quality (it is made once, after the build). */
export const brotliParams = (length) => ({
  [constants.BROTLI_PARAM_QUALITY]: 11,
  [constants.BROTLI_PARAM_SIZE_HINT]: length,
  [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
});

async function* walk(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}

/**
 * Writes `<file>.br` (brotli, quality 11) beside every compressible file of `<nextDir>/static` that
 * has none, a few at a time (zlib works on the thread pool). Returns how many it wrote and their
 * bytes before and after.
 */
export async function precompress(nextDir, { concurrency = 4 } = {}) {
  const staticDir = join(nextDir, "static");
  const todo = [];
  for await (const path of walk(staticDir)) {
    if (!(extname(path) in TYPES)) continue;
    const s = await stat(path);
    if (s.size < MIN_BYTES) continue;
    const br = await stat(`${path}.br`).catch(() => null);
    if (br && br.mtimeMs >= s.mtimeMs) continue;
    todo.push(path);
  }
  let raw = 0;
  let compressed = 0;
  const next = async () => {
    for (let path = todo.shift(); path !== undefined; path = todo.shift()) {
      const body = await readFile(path);
      const out = await compress(body, { params: brotliParams(body.length) });
      // Under another name first: a crash mid-write leaves no torn .br to be served.
      await writeFile(`${path}.br.tmp`, out);
      await rename(`${path}.br.tmp`, `${path}.br`);
      raw += body.length;
      compressed += out.length;
    }
  };
  const count = todo.length;
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, next));
  return { files: count, raw, compressed };
}

/** Whether an Accept-Encoding header accepts br (`br`, `br;q=0.5`, `*`; not `br;q=0`, nor `*` when br is named). */
export function acceptsBrotli(header) {
  let any = false;
  for (const part of String(header ?? "").split(",")) {
    const [coding, ...params] = part.trim().split(";").map((s) => s.trim());
    const q = params.find((p) => p.toLowerCase().startsWith("q="));
    const wanted = q === undefined || Number(q.slice(2)) > 0;
    if (coding.toLowerCase() === "br") return wanted;
    if (coding === "*") any = wanted;
  }
  return any;
}

const PREFIX = "/_next/static/";

/**
 * A request handler for `<nextDir>/static`'s precompressed files: answers a GET or HEAD of
 * /_next/static/<file> from `<file>.br` when the browser accepts br and that file exists, and
 * returns true; otherwise returns false and leaves the request to Next. `headers` are set on every
 * answer (the security headers next.config.ts sets on Next's).
 */
export function brotliStatic(nextDir, headers = []) {
  const root = join(nextDir, "static");
  /** @type {Map<string, Promise<{ body: Buffer; type: string; etag: string } | null>>} */
  const files = new Map();
  const load = (rel) => {
    let f = files.get(rel);
    if (!f) {
      f = (async () => {
        const path = join(root, rel);
        const [orig, br] = await Promise.all([stat(path).catch(() => null), stat(`${path}.br`).catch(() => null)]);
        // A .br older than its file (the file was rebuilt since) is not served.
        if (!orig?.isFile() || !br?.isFile() || br.mtimeMs < orig.mtimeMs) return null;
        const body = await readFile(`${path}.br`);
        return { body, type: TYPES[extname(rel)], etag: `"br-${orig.size.toString(36)}-${Math.floor(orig.mtimeMs).toString(36)}"` };
      })();
      // Only what exists is kept: a request for a name that has no .br (yet) is looked up again next
      // time, and a client asking for endless made-up names does not grow the map.
      files.set(rel, f);
      const forget = () => files.delete(rel);
      f.then((found) => found ?? forget(), forget);
    }
    return f;
  };
  return async (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const url = req.url ?? "";
    if (!url.startsWith(PREFIX) || !acceptsBrotli(req.headers["accept-encoding"])) return false;
    let rel;
    try {
      rel = decodeURIComponent(url.slice(PREFIX.length).split("?")[0]);
    } catch {
      return false;
    }
    // Only a plain path below static/ (no "..", no absolute path, no NUL).
    const clean = normalize(rel);
    if (clean !== rel || clean.startsWith("..") || clean.startsWith(sep) || clean.includes("\0") || !(extname(clean) in TYPES)) return false;
    const file = await load(clean);
    if (!file) return false;
    for (const { key, value } of headers) res.setHeader(key, value);
    res.setHeader("Cache-Control", "public, max-age=31536000, immutable");
    res.setHeader("Vary", "Accept-Encoding");
    res.setHeader("ETag", file.etag);
    if (req.headers["if-none-match"] === file.etag) {
      res.statusCode = 304;
      res.end();
      return true;
    }
    res.setHeader("Content-Type", file.type);
    res.setHeader("Content-Encoding", "br");
    res.setHeader("Content-Length", file.body.length);
    res.statusCode = 200;
    res.end(req.method === "HEAD" ? undefined : file.body);
    return true;
  };
}
