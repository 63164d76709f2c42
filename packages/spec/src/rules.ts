import { z } from "zod";
import { ENV_KEY_MESSAGE, ENV_KEY_RE, ENV_VALUE_NUL_MESSAGE, ENV_VALUE_SIZE_MESSAGE, MAX_ENV_VALUE_BYTES, NAME_MESSAGE, NAME_RE } from "./checks";

/** Service, app and database names: DNS labels. */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Ids are UUIDs; anything else names nothing (and must not reach a uuid column). */
export const isUuid = (id: string) => UUID_RE.test(id);

export { ENV_KEY_RE, MAX_ENV_VALUE_BYTES, NAME_RE } from "./checks";

export const resourceName = z
  .string({ error: "must be a string" })
  .regex(NAME_RE, NAME_MESSAGE);

export const envKey = z
  .string()
  .regex(ENV_KEY_RE, ENV_KEY_MESSAGE);

export const envValue = z
  .string({ error: "must be a string" })
  .refine((v) => !v.includes("\0"), ENV_VALUE_NUL_MESSAGE)
  .refine((v) => Buffer.byteLength(v, "utf8") <= MAX_ENV_VALUE_BYTES, ENV_VALUE_SIZE_MESSAGE);

export const envMap = z.record(envKey, envValue);
export type EnvMap = z.infer<typeof envMap>;

export const envDocument = z.object({ vars: envMap }).strict();
