import type { z } from "zod";

/**
 * What one zod issue says, in the product's words (the API's 400s and the spec file's problems):
 * an unknown field by name, a bad record key by its rule, and "is required" only for a value that
 * is absent (zod does not report the input, so it is looked up).
 */
export function issueMessage(issue: z.core.$ZodIssue, input: unknown): string {
  if (issue.code === "unrecognized_keys") return `unknown field ${issue.keys.join(", ")}`;
  if (issue.code === "invalid_key") return issue.issues[0]?.message ?? issue.message;
  if (issue.code === "invalid_type" && valueAt(input, issue.path) === undefined) return "is required";
  return issue.message;
}

/** The value at `path` inside `input`, or undefined. */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}
