import type { ServiceCreate, serviceCreate } from "@levelrail/spec/service";
import { ApiError } from "./fetcher";
import { parseEnvLines } from "./env-lines";
import { type FieldErrors, bareMessage, numberOrUndefined, topField } from "./form";
import { issueErrors } from "./zod-errors";
import { HOOK_DOMAIN_FIELDS, type HookDomainValues, hookDomainApiError, hookDomainErrors, hookDomainInput } from "./hooks-form";
import { limitApiError, limitErrors, limitInput } from "./limits-form";

// The New service form's checks and error placing, loaded with the API's schema when the form is
// sent (components/new-service-form.tsx): the hook, domain and limit parsers stay out of the
// environment page's first load.

/** The New service form's values, as typed. */
export interface NewServiceValues extends HookDomainValues {
  name: string;
  app: string;
  image: string;
  gitUrl: string;
  gitRef: string;
  port: string;
  healthPath: string;
  strategy: string;
  readyBudgetSeconds: string;
  env: string;
  memoryMb: string;
  cpus: string;
}

/** An error of a field the form has no control for (e.g. `body`) shows under the form. */
function placed(errors: FieldErrors, v: NewServiceValues): FieldErrors {
  const shown = new Set<string>([...Object.keys(v), ...HOOK_DOMAIN_FIELDS]);
  return Object.fromEntries(Object.entries(errors).map(([k, e]) => [shown.has(k) ? k : "form", e]));
}

/** The memory and CPU limits as `resources` (the rest at their defaults), or nothing when both are empty. */
function createLimits(v: NewServiceValues) {
  if (v.memoryMb.trim() === "" && v.cpus.trim() === "") return {};
  const { memoryMb, cpus } = limitInput({ memoryMb: v.memoryMb, cpus: v.cpus, pids: "", capAdd: [] }).resources;
  return { resources: { memoryMb, cpus } };
}

/** `image`, or a git source (`gitUrl`, `gitRef`) whose first build makes the image. */
function sourceInput(v: NewServiceValues): { image: string } | { source: { git: { url: string; ref: string } } } {
  return v.gitUrl.trim() === "" ? { image: v.image } : { source: { git: { url: v.gitUrl.trim(), ref: v.gitRef.trim() || "main" } } };
}

/** An API error about the git source lands on its field (`source.git.url` → `gitUrl`). */
const GIT_FIELDS: Record<string, string> = { "source.git.url": "gitUrl", "source.git.ref": "gitRef" };

/** The form's values as the API takes them, checked with the API's own schema (loaded on submit: zod stays out of the page). */
export function toInput(v: NewServiceValues, schema: typeof serviceCreate): { input: ServiceCreate } | { errors: FieldErrors } {
  if (v.image.trim() !== "" && v.gitUrl.trim() !== "") return { errors: { image: "leave it empty to build the image from the git repository" } };
  const env = parseEnvLines(v.env);
  if ("error" in env) return { errors: { env: env.error } };
  const { input: hooksAndDomains, unreadable } = hookDomainInput(v);
  const parsed = schema.safeParse({
    name: v.name,
    app: v.app,
    ...sourceInput(v),
    port: numberOrUndefined(v.port),
    healthPath: v.healthPath,
    strategy: v.strategy,
    readyBudgetSeconds: numberOrUndefined(v.readyBudgetSeconds),
    env: env.env,
    ...createLimits(v),
    ...hooksAndDomains,
  });
  if (parsed.success && Object.keys(unreadable).length === 0) return { input: parsed.data };
  const git = parsed.success ? undefined : parsed.error.issues.find((i) => i.path[0] === "source");
  if (git) return { errors: { [GIT_FIELDS[git.path.join(".")] ?? "gitUrl"]: git.message } };
  const { errors, rest } = parsed.success ? { errors: {}, rest: [] } : hookDomainErrors(parsed.error, hooksAndDomains.domains);
  const limits = limitErrors({ issues: rest });
  return { errors: placed({ ...issueErrors(limits.rest), ...limits.errors, ...errors, ...unreadable }, v) };
}

/** Where the API's refusal of the create shows: on the field it names, else under the form. */
export function apiErrors(err: unknown, v: NewServiceValues): FieldErrors {
  if (!(err instanceof ApiError)) return { form: "could not create the service" };
  const gitField = err.field === undefined ? undefined : GIT_FIELDS[err.field];
  if (gitField) return { [gitField]: bareMessage(err.message, err.field) };
  const placedError = hookDomainApiError(err.field, err.message) ?? limitApiError(err.field, err.message);
  return placed(placedError ? { [placedError.field]: placedError.message } : { [topField(err.field)]: err.message }, v);
}
