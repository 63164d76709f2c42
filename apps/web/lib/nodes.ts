import "server-only";
import { type NodesRead, dockerNodesReader } from "@levelrail/docker/nodes-read";
import { server } from "./server";

// On globalThis so that every route bundle (and dev reloads) share one connection setup.
const KEY = Symbol.for("levelrail.web.nodesReader");
type Holder = { [KEY]?: NodesRead };

/** The web app's read-only window on the installation's nodes (`docker info`, `docker node ls`). */
export function nodesReader(): NodesRead {
  const holder = globalThis as Holder;
  holder[KEY] ??= dockerNodesReader({ dockerHost: server().dockerHost });
  return holder[KEY];
}

const KIND = Symbol.for("levelrail.web.engineKind");
type KindHolder = { [KIND]?: { at: number; kind: Promise<"single" | "swarm" | null> } };
/** How long a page trusts the engine kind it learnt: an engine becomes a swarm manager rarely, and by hand. */
const KIND_TTL_MS = 30_000;

/**
 * One engine or a swarm, for a page's notes (the service page's replicas and placement): asked at
 * most every 30 s, and null when the engine did not answer, so a page renders without it. The API
 * asks afresh when a request needs a swarm.
 */
export function engineKindOrNull(): Promise<"single" | "swarm" | null> {
  const holder = globalThis as KindHolder;
  const held = holder[KIND];
  if (held && Date.now() - held.at < KIND_TTL_MS) return held.kind;
  const kind = nodesReader()
    .nodes()
    .then((v) => v.engine, () => null);
  holder[KIND] = { at: Date.now(), kind };
  return kind;
}
