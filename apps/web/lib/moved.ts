import "server-only";
import { listServices } from "@levelrail/services/service/view";
import { LevelrailError } from "@levelrail/spec/errors";
import { route } from "./api";

type Rest = { rest?: string[] };
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/**
 * The flat routes from before environments answer 410 with the path that replaced them. When the
 * caller has exactly one service (or app) of that name, the message names its environment's path.
 */
export function movedRoutes(kind: "apps" | "services") {
  const handler = route<Rest>(async ({ ctx, params }) => {
    // The top-level POST /api/v1/services has no path parameters at all.
    const [name, ...tail] = (params as Rest | undefined)?.rest ?? [];
    const suffix = [name, ...tail].filter(Boolean).join("/");
    let envId = "{envId}";
    if (name) {
      const matches = (await listServices({ ctx })).filter((s) => (kind === "services" ? s.name === name : s.app === name));
      const envs = new Set(matches.map((s) => s.environmentId));
      if (envs.size === 1) envId = [...envs][0]!;
    }
    const path = `/api/v1/environments/${envId}/${kind}${suffix ? `/${suffix}` : ""}`;
    throw new LevelrailError("gone", `this route moved when environments became namespaces: use ${path} (GET /api/v1/services lists every service with its environmentId)`);
  });
  return Object.fromEntries(METHODS.map((m) => [m, handler])) as Record<(typeof METHODS)[number], typeof handler>;
}
