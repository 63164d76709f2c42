import type { ZodError } from "zod";

/** Field → message, the first problem of each field. */
export type FieldErrors = Partial<Record<string, string>>;

/** zod issues as the form shows them, keyed by top-level field like the API's `field`. */
export function fieldErrors(error: ZodError): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const field = issue.code === "unrecognized_keys" ? issue.keys[0] : issue.path[0];
    const key = field === undefined ? "form" : String(field);
    if (out[key] !== undefined) continue;
    const missing = issue.code === "invalid_type" && issue.input === undefined;
    const where = issue.path.length > 1 ? `${issue.path.slice(1).map(String).join(".")}: ` : "";
    // A bad record key (an env var name) carries the key rule's own message inside.
    const message = issue.code === "invalid_key" ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    out[key] = missing ? "is required" : `${where}${message}`;
  }
  return out;
}

/** The top-level form field an API error's `field` (e.g. `env.FOO`) belongs to. */
export const topField = (field: string | undefined) => (field ? (field.split(".")[0] ?? field) : "form");

/** `KEY=value` lines (blank lines and `#` comments skipped); the first bad line is an error. */
export function parseEnvLines(text: string): { env: Record<string, string> } | { error: string } {
  const env: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const eq = raw.indexOf("=");
    const key = eq < 0 ? "" : raw.slice(0, eq).trim();
    if (key === "") return { error: `line ${i + 1}: must be KEY=value` };
    env[key] = raw.slice(eq + 1);
  }
  return { env };
}

/** A number input's value: empty stays undefined so the schema can say "is required". */
export const numberOrUndefined = (v: string) => (v.trim() === "" ? undefined : Number(v));
