import type Docker from "dockerode";
import { statusOf } from "./engine-errors";
import type { Runtime } from "./index";
import { type EngineStats, readStats } from "./stats";

/** The most containers whose configured memory limit is remembered (an inspect each, once). */
const LIMIT_CACHE = 10_000;

/**
 * `containerStats`: one one-shot read of the engine's stats (it answers at once, without waiting a
 * second for a previous reading; CPU is computed between the caller's own readings). A container's
 * configured memory limit (`HostConfig.Memory`) never changes after it is made, so it is inspected
 * once per container and remembered. `api` answers request/response calls under a deadline.
 */
export function statsCalls(api: Docker): Pick<Runtime, "containerStats"> {
  const limits = new Map<string, number>();
  const configuredLimit = async (id: string): Promise<number> => {
    const known = limits.get(id);
    if (known !== undefined) return known;
    const info = await api.getContainer(id).inspect();
    const limit = info.HostConfig?.Memory ?? 0;
    if (limits.size >= LIMIT_CACHE) limits.clear();
    limits.set(id, limit);
    return limit;
  };
  return {
    async containerStats(id) {
      try {
        const [raw, limit] = await Promise.all([api.getContainer(id).stats({ stream: false, "one-shot": true }), configuredLimit(id)]);
        return readStats(raw as unknown as EngineStats, limit);
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
        limits.delete(id);
        return null;
      }
    },
  };
}
