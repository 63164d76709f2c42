import type { ZodError } from "zod";
import { nameProblem } from "@levelrail/spec/checks";

/** Field → message, the first problem of each field. */
export type FieldErrors = Partial<Record<string, string>>;

/** zod issues as the form shows them, keyed by top-level field like the API's `field`. */
export function fieldErrors(error: ZodError): FieldErrors {
  return issueErrors(error.issues);
}

/** The same for some of a parse's issues (the rest already placed elsewhere). */
export function issueErrors(issues: ZodError["issues"]): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of issues) {
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

/** A value as .env files write it: trimmed, and one pair of matching surrounding quotes removed. */
function dotenvValue(raw: string): string {
  const v = raw.trim();
  const quote = v[0];
  return v.length >= 2 && (quote === '"' || quote === "'") && v.endsWith(quote) ? v.slice(1, -1) : v;
}

/**
 * `.env` text as a map: `KEY=value` lines, blank lines and `#` comments
 * skipped, a leading `export ` dropped, matching surrounding quotes stripped.
 * A line without `=` is an error naming it; keys are checked by the caller.
 */
export function parseEnvLines(text: string): { env: Record<string, string> } | { error: string } {
  const env: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const line = trimmed.replace(/^export\s+/, "");
    const eq = line.indexOf("=");
    const key = eq < 0 ? "" : line.slice(0, eq).trim();
    if (key === "") return { error: `line ${i + 1}: must be KEY=value` };
    env[key] = dotenvValue(line.slice(eq + 1));
  }
  return { env };
}

/** The message of an API error without its leading `field: ` (the form shows it next to that field). */
export const bareMessage = (message: string, field: string | undefined) =>
  field !== undefined && message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message;

/** A number input's value: empty stays undefined so the schema can say "is required". */
export const numberOrUndefined = (v: string) => (v.trim() === "" ? undefined : Number(v));

/** A name field checked with the product's name rule: the name, or null after `onError` got the reason. */
export function checkedName(name: string, onError: (message: string | undefined) => void): string | null {
  // The rule of @levelrail/spec/rules' resourceName, without zod (its message is the same).
  const problem = nameProblem(name);
  onError(problem);
  return problem === undefined ? name : null;
}
