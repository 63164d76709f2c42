import { z } from "zod";

/** Service, app and database names: DNS labels. */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Ids are UUIDs; anything else names nothing (and must not reach a uuid column). */
export const isUuid = (id: string) => UUID_RE.test(id);

export const NAME_RE = /^[a-z][a-z0-9-]{0,62}$/;
/** Env var keys. */
export const ENV_KEY_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const MAX_ENV_VALUE_BYTES = 64 * 1024;

export const resourceName = z
  .string({ error: "must be a string" })
  .regex(NAME_RE, "must be a DNS label: a lowercase letter, then lowercase letters, digits or '-', at most 63 characters");

export const envKey = z
  .string()
  .regex(ENV_KEY_RE, "must start with a letter or '_' and contain only letters, digits and '_'");

export const envValue = z
  .string({ error: "must be a string" })
  .refine((v) => !v.includes("\0"), "must not contain NUL")
  .refine((v) => Buffer.byteLength(v, "utf8") <= MAX_ENV_VALUE_BYTES, "must be at most 64 KiB");

export const envMap = z.record(envKey, envValue);
export type EnvMap = z.infer<typeof envMap>;

export const envDocument = z.object({ vars: envMap }).strict();
