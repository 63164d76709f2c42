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
