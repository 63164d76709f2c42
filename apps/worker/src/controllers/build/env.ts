import { type EnvStores, type EnvTarget, UnresolvableError, resolveEnv } from "@levelrail/spec/env";
import type { BuildEnv } from "./ports";

/**
 * Build args from the service's effective environment, as the application controller resolves it:
 * only the source's opt-in keys (nothing is injected per build, so the cache holds), and every
 * sensitive value of that environment to redact from the log. A key whose value is sensitive (a
 * secret, a credential, a database URL) is refused: a build arg's value stays in the built image's
 * history (`docker history`, the image's config) for anyone who can read the image.
 */
export function buildEnvFrom(stores: EnvStores, targetOf: (serviceId: string) => Promise<EnvTarget | null>): BuildEnv {
  return {
    async buildEnv(serviceId, keys) {
      const target = await targetOf(serviceId);
      if (!target) return { ok: false, problem: "the service no longer exists" };
      try {
        const entries = await resolveEnv(target, stores);
        const byKey = new Map(entries.map((e) => [e.key, e.value]));
        const missing = keys.filter((k) => !byKey.has(k));
        if (missing.length) return { ok: false, problem: `build arg ${missing.join(", ")} is not in the service's environment` };
        const sensitive = new Set(entries.filter((e) => e.sensitive).map((e) => e.key));
        const secret = keys.filter((k) => sensitive.has(k));
        if (secret.length) {
          return { ok: false, problem: `build arg ${secret.join(", ")} is a secret, and a build arg's value stays in the built image's history (docker history); remove it from the source's buildArgs` };
        }
        return {
          ok: true,
          args: Object.fromEntries(keys.map((k) => [k, byKey.get(k) ?? ""])),
          secrets: entries.filter((e) => e.sensitive).map((e) => e.value),
        };
      } catch (err) {
        if (err instanceof UnresolvableError) return { ok: false, problem: err.message };
        throw err;
      }
    },
  };
}
