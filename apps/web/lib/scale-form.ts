import type { ZodError } from "zod";
import { type FieldErrors, bareMessage } from "./form";

// The service page's Replicas and Placement form, without zod: it is checked on submit with the
// API's own schema, loaded then.
// Placement is typed as `key=value` lines: neither a node label key nor its value may hold `=`, so
// the first one splits them.

/** The form's values as typed. */
export interface ScaleValues {
  replicas: string;
  placement: string;
}

export const SCALE_FIELDS = ["replicas", "placement"] as const;
type ScaleField = (typeof SCALE_FIELDS)[number];

/** A placement as the form's text: one `key=value` a line, in key order. */
export function placementText(placement: Record<string, string>): string {
  return Object.keys(placement)
    .sort()
    .map((k) => `${k}=${placement[k]}`)
    .join("\n");
}

export function scaleValues(s: { replicas: number; placement: Record<string, string> }): ScaleValues {
  return { replicas: String(s.replicas), placement: placementText(s.placement) };
}

/**
 * The text as the API's `placement`, or the first line that is not `key=value` (or repeats a key).
 * Blank lines are skipped; spaces around the `=` and at a line's ends are not part of the label.
 */
export function parsePlacement(text: string): { placement: Record<string, string> } | { error: string } {
  const placement: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "") continue;
    const at = line.indexOf("=");
    if (at < 0) return { error: `line ${i + 1}: must be key=value, like zone=eu-1` };
    const key = line.slice(0, at).trim();
    const value = line.slice(at + 1).trim();
    if (key === "") return { error: `line ${i + 1}: the label key is missing before '='` };
    if (key in placement) return { error: `line ${i + 1}: ${key} is given twice` };
    placement[key] = value;
  }
  return { placement };
}

/** The values as the API's patch, still unchecked (empty replicas is the default, 1), or the placement text's error. */
export function scaleInput(v: ScaleValues): { input: { replicas: number; placement: Record<string, string> } } | { error: string } {
  const parsed = parsePlacement(v.placement);
  if ("error" in parsed) return parsed;
  return { input: { replicas: v.replicas.trim() === "" ? 1 : Number(v.replicas.trim()), placement: parsed.placement } };
}

/** The form field of an API error's path (`placement.zone` → placement), or undefined. */
function scaleField(path: readonly PropertyKey[]): ScaleField | undefined {
  return SCALE_FIELDS.find((f) => f === path[0]);
}

/**
 * The schema's issues by form field, a label's naming it ("zone: must be …"). Not lib/form's
 * issueErrors: zod does not report the input, so that one reads text that is no number ("two",
 * sent as NaN) as a missing value ("is required").
 */
export function scaleErrors(issues: ZodError["issues"]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const key = scaleField(issue.path) ?? "form";
    // A bad label key carries the key rule's own message inside.
    const message = issue.code === "invalid_key" ? (issue.issues[0]?.message ?? issue.message) : issue.message;
    errors[key] ??= issue.path.length > 1 ? `${String(issue.path[1])}: ${message}` : message;
  }
  return errors;
}

/** An API error (`field` like `replicas` or `placement.zone`) as the form's field and message, or null when it is about neither. */
export function scaleApiError(field: string | undefined, message: string): { field: ScaleField; message: string } | null {
  if (field === undefined) return null;
  const path = field.split(".");
  const f = scaleField(path);
  if (f === undefined) return null;
  const bare = bareMessage(message, field);
  return { field: f, message: path.length > 1 ? `${path.slice(1).join(".")}: ${bare}` : bare };
}

/** How the service page shows a placement. */
export const placementSummary = (placement: Record<string, string>) => (Object.keys(placement).length === 0 ? "any node" : placementText(placement).split("\n").join(", "));
