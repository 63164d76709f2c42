/**
 * The name and env var rules as plain checks, with no zod: forms check a field as one types without
 * pulling zod into the page. ./rules builds its zod schemas from the same patterns and messages, so
 * the API and a form say the same thing.
 */

/** Service, app and database names: DNS labels. */
export const NAME_RE = /^[a-z][a-z0-9-]{0,62}$/;
export const NAME_MESSAGE = "must be a DNS label: a lowercase letter, then lowercase letters, digits or '-', at most 63 characters";

/** Env var keys. */
export const ENV_KEY_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const ENV_KEY_MESSAGE = "must start with a letter or '_' and contain only letters, digits and '_'";

export const MAX_ENV_VALUE_BYTES = 64 * 1024;
export const ENV_VALUE_NUL_MESSAGE = "must not contain NUL";
export const ENV_VALUE_SIZE_MESSAGE = "must be at most 64 KiB";

/** UTF-8 bytes of `v` (as Buffer.byteLength counts them; TextEncoder works in the browser too). */
export const utf8Bytes = (v: string) => new TextEncoder().encode(v).length;

/** Why `name` is not a resource name, or undefined. */
export const nameProblem = (name: string): string | undefined => (NAME_RE.test(name) ? undefined : NAME_MESSAGE);

/** Why `key` is not an env var key, or undefined. */
export const envKeyProblem = (key: string): string | undefined => (ENV_KEY_RE.test(key) ? undefined : ENV_KEY_MESSAGE);

/** Why `value` cannot be an env var's value, or undefined (the first problem, as the schema reports it). */
export function envValueProblem(value: string): string | undefined {
  if (value.includes("\0")) return ENV_VALUE_NUL_MESSAGE;
  if (utf8Bytes(value) > MAX_ENV_VALUE_BYTES) return ENV_VALUE_SIZE_MESSAGE;
  return undefined;
}
