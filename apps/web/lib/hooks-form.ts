import type { ZodError } from "zod";
import type { Hooks } from "@levelrail/spec/service";
import { type FieldErrors, bareMessage, numberOrUndefined } from "./form";
import { HOOK_DOMAIN_FIELDS, type HookDomainValues } from "./hook-domain-values";

// The values, field names and hints (what a form shows before it is sent) are in
// hook-domain-values.ts, apart from the parsing and error placing here, which the create form loads on submit.
export { EMPTY_HOOK_DOMAINS, HOOK_DOMAIN_FIELDS, type HookDomainValues } from "./hook-domain-values";
type HookDomainField = (typeof HOOK_DOMAIN_FIELDS)[number];

/**
 * A command's arguments, or why the text is not one. Text starting with `[`
 * is a JSON array, except a first line that is only `[` (the `[` command),
 * which is read as lines unless the whole text is valid JSON.
 */
export function parseArgv(text: string): { argv: unknown } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { argv: null };
  if (trimmed.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (Array.isArray(parsed)) return { argv: parsed };
    } catch {
      // not JSON: an error unless the first line is the `[` command
    }
    if (trimmed.split(/\r?\n/, 1)[0]?.trim() !== "[") return { error: 'must be a JSON array of strings like ["npm","run","migrate"], or one argument per line' };
  }
  return {
    argv: trimmed
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== ""),
  };
}

/** The text that parses back to exactly `argv`: lines when that is lossless, else a JSON array. */
export function argvText(argv: readonly string[] | null): string {
  if (argv === null || argv.length === 0) return "";
  const asLines = argv.join("\n");
  const lossless = argv.every((a) => a !== "" && a === a.trim() && !a.includes("\n") && !a.includes("\r")) && !(argv[0] ?? "").startsWith("[");
  return lossless ? asLines : JSON.stringify(argv);
}

export const parseDomains = (text: string): string[] =>
  text
    .split(/[\r\n]+/)
    .map((d) => d.trim())
    .filter((d) => d !== "");

export const domainsText = (domains: readonly string[]) => domains.join("\n");

/**
 * The values as the API's `hooks` and `domains` take them, still unchecked
 * (the caller validates them with the API's schema), and the commands that
 * could not be read at all.
 */
export function hookDomainInput(v: HookDomainValues) {
  const pre = parseArgv(v.preDeploy);
  const post = parseArgv(v.postDeploy);
  const unreadable: FieldErrors = {};
  if ("error" in pre) unreadable.preDeploy = pre.error;
  if ("error" in post) unreadable.postDeploy = post.error;
  return {
    input: {
      hooks: {
        preDeploy: "argv" in pre ? pre.argv : null,
        postDeploy: "argv" in post ? post.argv : null,
        timeoutSeconds: numberOrUndefined(v.timeoutSeconds),
      },
      domains: parseDomains(v.domains),
    },
    unreadable,
  };
}

export function hookDomainValues(hooks: Hooks, domains: readonly string[]): HookDomainValues {
  return { preDeploy: argvText(hooks.preDeploy), postDeploy: argvText(hooks.postDeploy), timeoutSeconds: String(hooks.timeoutSeconds), domains: domainsText(domains) };
}

/** The form field an API or schema path belongs to (`hooks.preDeploy.0` → preDeploy, `domains.2` → domains), or undefined. */
export function hookDomainField(path: readonly PropertyKey[]): HookDomainField | undefined {
  const [top, sub] = path;
  if (top === "domains") return "domains";
  if (top === "hooks" && (sub === "preDeploy" || sub === "postDeploy" || sub === "timeoutSeconds")) return sub;
  // `hooks` itself (e.g. not an object) is shown on the first command.
  if (top === "hooks") return "preDeploy";
  return undefined;
}

/** What is wrong, said for the field: which argument or which domain. */
function describe(field: HookDomainField, path: readonly PropertyKey[], message: string, domains: readonly string[]): string {
  const index = field === "domains" ? path[1] : path[2];
  if (typeof index !== "number") return message;
  if (field === "domains") return `${domains[index] ?? `domain ${index + 1}`}: ${message}`;
  return `argument ${index + 1}: ${message}`;
}

/**
 * Schema errors of the hooks and domains, by form field; errors of other
 * fields are left to the caller (`rest`).
 */
export function hookDomainErrors(error: ZodError, domains: readonly string[]): { errors: FieldErrors; rest: ZodError["issues"] } {
  const errors: FieldErrors = {};
  const rest: ZodError["issues"] = [];
  for (const issue of error.issues) {
    const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0] ?? ""] : issue.path;
    const field = hookDomainField(path);
    if (field === undefined) {
      rest.push(issue);
      continue;
    }
    if (errors[field] !== undefined) continue;
    const message = issue.code === "invalid_type" && issue.input === undefined ? "is required" : issue.message;
    errors[field] = describe(field, path, message, domains);
  }
  return { errors, rest };
}

/** An API error (`field` like `hooks.postDeploy.1`) as the form's field and message, or null when it is not about these fields. */
export function hookDomainApiError(field: string | undefined, message: string): { field: HookDomainField; message: string } | null {
  if (field === undefined) return null;
  const path = field.split(".").map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const f = hookDomainField(path);
  if (f === undefined) return null;
  const index = f === "domains" ? path[1] : path[2];
  const bare = bareMessage(message, field);
  return { field: f, message: typeof index === "number" ? (f === "domains" ? `domain ${index + 1}: ${bare}` : `argument ${index + 1}: ${bare}`) : bare };
}
