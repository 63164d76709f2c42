import type { ZodError } from "zod";
import type { Resources } from "@levelrail/spec/service";
import { type Capability, DEFAULT_PIDS_LIMIT, ROLE_CAPABILITIES } from "@levelrail/spec/service-lists";
import { type FieldErrors, bareMessage } from "./form";

/** A service's limits as the form edits them: numbers as typed, empty meaning "the default". */
export interface LimitValues {
  memoryMb: string;
  cpus: string;
  pids: string;
  capAdd: Capability[];
}

export const LIMIT_FIELDS = ["memoryMb", "cpus", "pids", "capAdd"] as const;
type LimitField = (typeof LIMIT_FIELDS)[number];

/** The capabilities every service container keeps (its role's); `capAdd` adds to these. */
export const SERVICE_CAPABILITIES = ROLE_CAPABILITIES.service;

export function limitValues(r: Resources): LimitValues {
  return { memoryMb: r.memoryMb === null ? "" : String(r.memoryMb), cpus: r.cpus === null ? "" : String(r.cpus), pids: String(r.pids), capAdd: [...r.capAdd] };
}

/** Empty: null (no limit); anything else as a number, so the schema says what is wrong with it. */
const limitOrNull = (v: string) => (v.trim() === "" ? null : Number(v.trim()));

/** The values as the API's `resources` takes them, still unchecked: empty memory/CPUs is no limit, empty processes the default. */
export function limitInput(v: LimitValues) {
  return {
    resources: {
      memoryMb: limitOrNull(v.memoryMb),
      cpus: limitOrNull(v.cpus),
      pids: v.pids.trim() === "" ? DEFAULT_PIDS_LIMIT : Number(v.pids.trim()),
      capAdd: v.capAdd,
    },
  };
}

/** The form field of a path under `resources` (`resources.capAdd.0` → capAdd), or undefined. */
function limitField(path: readonly PropertyKey[]): LimitField | undefined {
  const [top, sub] = path;
  if (top !== "resources") return undefined;
  return LIMIT_FIELDS.find((f) => f === sub) ?? "memoryMb";
}

/** Schema errors of the limits, by form field; the rest (not about limits) left to the caller. */
export function limitErrors(error: Pick<ZodError, "issues">): { errors: FieldErrors; rest: ZodError["issues"] } {
  const errors: FieldErrors = {};
  const rest: ZodError["issues"] = [];
  for (const issue of error.issues) {
    const field = limitField(issue.path);
    if (field === undefined) rest.push(issue);
    else errors[field] ??= issue.message;
  }
  return { errors, rest };
}

/** An API error (`field` like `resources.memoryMb`) as the form's field and message, or null when it is not about limits. */
export function limitApiError(field: string | undefined, message: string): { field: LimitField; message: string } | null {
  if (field === undefined) return null;
  const f = limitField(field.split("."));
  return f === undefined ? null : { field: f, message: bareMessage(message, field) };
}

/** How the service page shows a limit. */
export const memoryText = (mb: number | null) => (mb === null ? "no limit" : `${mb} MiB`);
export const cpusText = (cpus: number | null) => (cpus === null ? "no limit" : `${cpus}`);
export const capabilitiesText = (caps: readonly string[]) => (caps.length === 0 ? "none" : caps.join(", "));
