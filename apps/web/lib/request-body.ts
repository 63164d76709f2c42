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

/**
 * The path of the first string (or object key) holding a NUL byte, or null. PostgreSQL cannot store
 * one in text; caught here it is a 400 naming the field instead of a failed query.
 */
export function nulPath(value: unknown, path: string[] = []): string | null {
  if (typeof value === "string") return value.includes("\0") ? path.join(".") || "body" : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = nulPath(value[i], [...path, String(i)]);
      if (p !== null) return p;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes("\0")) return [...path, k.replace(/\0/g, "\\0")].join(".");
      const p = nulPath(v, [...path, k]);
      if (p !== null) return p;
    }
  }
  return null;
}

/** Throws a 400 naming the first field with a NUL byte. */
export function refuseNul(value: unknown, prefix: string[] = []): void {
  const field = nulPath(value, prefix);
  if (field !== null) throw new LevelrailError("invalid_input", `${field}: must not contain a NUL byte`, { field });
}
