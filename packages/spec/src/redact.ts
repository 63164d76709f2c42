/** What a redacted value is replaced with. */
export const REDACTED = "[redacted]";

/**
 * Values shorter than this are not redacted: a 1–3 character secret (`1`, `on`, `dev`) would shred
 * every line of output it happens to occur in, and hiding it protects little.
 */
export const MIN_REDACTED_LENGTH = 4;

/** Replaces every occurrence of a service's secret values in a text with `[redacted]`. */
export type Redactor = (text: string) => string;

/** A redactor that changes nothing (no secrets known). */
export const noRedaction: Redactor = (text) => text;

/**
 * Every form of `values` a program may print, longest first (so a secret that contains another is
 * hidden whole), each at least MIN_REDACTED_LENGTH long: the value as it is; a URL's password (a
 * database URL's) on its own, decoded and as written; a value with CRLF line ends as the logs show
 * it (LF); and of each of those its base64 (standard and URL-safe, at any alignment: also inside a
 * longer encoded text) and its JSON-escaped forms (as JavaScript writes them, with `\/` as PHP
 * does, and ASCII-only as Python does).
 */
export function redactionForms(values: Iterable<string>): string[] {
  const all = new Set<string>();
  for (const v of values) {
    for (const base of new Set([v, v.replace(/\r\n/g, "\n"), ...urlPassword(v)])) {
      if (base.length < MIN_REDACTED_LENGTH) continue;
      for (const form of [base, ...encodedForms(base)]) if (form.length >= MIN_REDACTED_LENGTH) all.add(form);
    }
  }
  return [...all].sort((a, b) => b.length - a.length);
}

function encodedForms(v: string): string[] {
  const json = JSON.stringify(v).slice(1, -1);
  const ascii = json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  const b64 = base64Forms(new TextEncoder().encode(v));
  const slashed = (s: string) => s.replace(/\//g, "\\/");
  return [...b64, ...b64.map((b) => b.replace(/\+/g, "-").replace(/\//g, "_")), json, slashed(json), ascii, slashed(ascii)];
}

/**
 * The base64 of `bytes` wherever they sit in what a program encodes (a basic-auth header, a JSON
 * blob): for each of the three alignments, the characters that only these bytes decide.
 */
function base64Forms(bytes: Uint8Array): string[] {
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    let binary = "\0".repeat(k);
    for (const b of bytes) binary += String.fromCharCode(b);
    out.push(btoa(binary).slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6)));
  }
  return out;
}

/** Replaces every occurrence of `forms` (longest first, as `redactionForms` gives them) in `text`. */
export function redactForms(text: string, forms: readonly string[]): string {
  let out = text;
  for (const v of forms) if (out.includes(v)) out = out.split(v).join(REDACTED);
  return out;
}

/**
 * A redactor for `values` (secret env values, registry passwords), in every form `redactionForms`
 * knows. It sees one text at a time: a stream of lines (a container's logs) needs `LineRedactor`.
 */
export function redactor(values: Iterable<string>): Redactor {
  const forms = redactionForms(values);
  if (forms.length === 0) return noRedaction;
  return (text) => redactForms(text, forms);
}

function urlPassword(value: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(value)) return [];
  try {
    const raw = new URL(value).password;
    if (!raw) return [];
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      // not valid percent-encoding: the raw form is all there is
    }
    return decoded === raw ? [raw] : [raw, decoded];
  } catch {
    return [];
  }
}

/**
 * Redacts an error's message and stack (and its causes') in place, keeping its class: a thrown
 * error is logged by whoever catches it, after the pass that knew the secrets has ended.
 */
export function redactError(err: unknown, redact: Redactor, depth = 0): unknown {
  if (!(err instanceof Error) || redact === noRedaction || depth > 5) return err;
  err.message = redact(err.message);
  if (err.stack) err.stack = redact(err.stack);
  if (err.cause !== undefined) redactError(err.cause, redact, depth + 1);
  return err;
}
