import type { ZodError } from "zod";
import type { FieldErrors } from "./form";

// Apart from form.ts: only a form that has parsed with a schema needs these, so a form that loads
// its schema when it is sent loads them with it (await import) and the page's first load does not.

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
