import { LevelrailError } from "@levelrail/spec/errors";

/** The largest request body any route takes (a whole env tier of 64 KiB values fits many times over). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

const tooLarge = () => new LevelrailError("too_large", `body: larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB; send less`, { field: "body" });

/**
 * The body's bytes, refused with a 413 once it passes the cap: a declared Content-Length at once,
 * a chunked body as soon as it has sent one byte too many (it is never buffered whole).
 */
export async function readCapped(req: Request, max = MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > max) throw tooLarge();
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** How deeply a body's arrays and objects may nest; no route takes anything near it. */
export const MAX_DEPTH = 64;

const tooDeep = (max: number) => new LevelrailError("invalid_input", `body: nested more than ${max} levels deep; send a flatter body`, { field: "body" });

/** A value still to look at: its parent's frame and its key there (the path is built only on a hit). */
interface Frame {
  value: unknown;
  parent: Frame | null;
  key: string;
  depth: number;
  /** The key itself holds a NUL byte: this frame is the finding. */
  badKey?: true;
}

function pathOf(f: Frame | null, prefix: readonly string[]): string {
  const keys: string[] = [];
  for (let at = f; at?.parent; at = at.parent) keys.push(at.key);
  return [...prefix, ...keys.reverse()].join(".") || "body";
}

/**
 * The path of the first string (or object key) holding a NUL byte, or null. PostgreSQL cannot store
 * one in text; caught here it is a 400 naming the field instead of a failed query. One pass with an
 * explicit stack (linear in the body's size, whatever its nesting); nesting deeper than `maxDepth`
 * is a 400 naming `body`.
 */
export function nulPath(value: unknown, prefix: readonly string[] = [], maxDepth = MAX_DEPTH): string | null {
  const stack: Frame[] = [{ value, parent: null, key: "", depth: 0 }];
  for (let f = stack.pop(); f; f = stack.pop()) {
    if (f.badKey) return pathOf(f, prefix);
    const v = f.value;
    if (typeof v === "string") {
      if (v.includes("\0")) return pathOf(f, prefix);
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (f.depth >= maxDepth) throw tooDeep(maxDepth);
    const depth = f.depth + 1;
    // Pushed last first, so the first field is looked at first (the error names the first one).
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i] as unknown, parent: f, key: String(i), depth });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      if (k.includes("\0")) stack.push({ value: null, parent: f, key: k.replace(/\0/g, "\\0"), depth, badKey: true });
      else stack.push({ value: (v as Record<string, unknown>)[k], parent: f, key: k, depth });
    }
  }
  return null;
}

/** Throws a 400 naming the first field with a NUL byte. */
export function refuseNul(value: unknown, prefix: string[] = []): void {
  const field = nulPath(value, prefix);
  if (field !== null) throw new LevelrailError("invalid_input", `${field}: must not contain a NUL byte`, { field });
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x5b, 0x7b]); // [ {
const CLOSE = new Set([0x5d, 0x7d]); // ] }

/**
 * How deeply JSON text nests its arrays and objects (brackets inside strings do not count), read in
 * one pass over the bytes; it stops as soon as the depth passes `stopAbove`. As long as the text is
 * valid JSON this is the depth the parser reaches; where it is not, the parser stops there.
 */
export function jsonDepth(bytes: Uint8Array, stopAbove = Infinity): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (OPEN.has(b)) {
      if (++depth > max) max = depth;
      if (max > stopAbove) return max;
    } else if (CLOSE.has(b)) depth--;
  }
  return max;
}

/**
 * A request body's bytes as JSON: an empty body is `undefined`; malformed JSON, nesting deeper than
 * `MAX_DEPTH` (or too deep for the parser itself) and a NUL byte anywhere are each a 400.
 */
export function parseJsonBody(bytes: Uint8Array): unknown {
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === "") return undefined;
  // Before parsing: V8's parser takes seconds over a few MiB of nesting (2.7 s for 4 MiB of `[`).
  if (jsonDepth(bytes, MAX_DEPTH) > MAX_DEPTH) throw tooDeep(MAX_DEPTH);
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch (err) {
    // A parser that recurses (not V8's today) overflows its stack on deep input: that is the caller's too.
    if (err instanceof RangeError) throw tooDeep(MAX_DEPTH);
    throw new LevelrailError("invalid_input", "body: must be valid JSON", { field: "body" });
  }
  refuseNul(body);
  return body;
}
