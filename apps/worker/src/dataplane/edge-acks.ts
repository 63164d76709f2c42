import { existsSync, readFileSync } from "node:fs";
import { type EdgeAcks, edgeAcksSchema } from "@levelrail/spec/dataplane";

/** How long after its last read of the feed an agent still counts (a node whose agent stopped asking is not waited for). */
export const ACK_FRESH_MS = 15_000;

/** The agents' acknowledgements (`EDGE_ACKS_FILE`); null when none was written or it cannot be read. */
export function readEdgeAcks(file: string): EdgeAcks | null {
  if (!existsSync(file)) return null;
  try {
    const parsed = edgeAcksSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Pure: the nodes whose agent asked lately and has not applied `generation` yet. */
export function laggingEdges(acks: EdgeAcks | null, generation: number, now: number, freshMs = ACK_FRESH_MS): string[] {
  if (!acks) return [];
  return Object.entries(acks.nodes)
    .filter(([, n]) => now - n.seenAt < freshMs && n.generation < generation)
    .map(([id]) => id)
    .sort();
}
