import { LevelrailError, conflict } from "@levelrail/spec/errors";
import { type Placement, needsSwarm } from "@levelrail/spec/service";
import type { Ctx } from "../context";

/** What one engine answers a service that asks for more than one container, or for a placement. */
export const ONE_ENGINE = {
  replicas: "replicas: more than 1 needs a Docker Swarm; this installation runs on one engine (see Nodes)",
  placement: "placement: placing on node labels needs a Docker Swarm; this installation runs on one engine (see Nodes)",
} as const;

/**
 * Refuses (409 naming the field) replicas above 1 or a placement when the installation runs on one
 * engine: it runs each release as one container, so it could not do what was asked. The defaults
 * (what nearly every request carries) never reach the engine.
 */
export async function refuseOnOneEngine(ctx: Pick<Ctx, "engine">, asked: { replicas?: number | undefined; placement?: Placement | undefined }): Promise<void> {
  const field = needsSwarm(asked);
  if (field === null) return;
  if (!ctx.engine) throw new LevelrailError("internal", `${field}: the panel was started without a way to ask the engine whether it is a swarm`);
  const { engine } = await ctx.engine.nodes().catch((cause: unknown) => {
    throw new LevelrailError("unavailable", `${field}: the Docker engine did not say whether it is a swarm; try again in a moment`, { cause });
  });
  if (engine !== "swarm") throw conflict(ONE_ENGINE[field], field);
}
