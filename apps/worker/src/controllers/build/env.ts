import { type EnvStores, type EnvTarget, UnresolvableError, resolveEnv } from "@levelrail/spec/env";
import type { BuildEnv } from "./ports";

/**
 * Build args from the service's effective environment, as the application controller resolves it:
 * only the source's opt-in keys (nothing is injected per build, so the cache holds), and every
 * sensitive value of that environment to redact from the log.
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
