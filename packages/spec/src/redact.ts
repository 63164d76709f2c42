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
 * A redactor for `values` (secret env values, registry passwords). A URL's password (a database
 * URL's) is redacted on its own too, decoded and as written. Longer values first, so a secret that
 * contains another is hidden whole.
 */
export function redactor(values: Iterable<string>): Redactor {
  const all = new Set<string>();
  for (const v of values) for (const part of [v, ...urlPassword(v)]) if (part.length >= MIN_REDACTED_LENGTH) all.add(part);
  if (all.size === 0) return noRedaction;
  const sorted = [...all].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const v of sorted) if (out.includes(v)) out = out.split(v).join(REDACTED);
    return out;
  };
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
