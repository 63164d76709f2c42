import { changeNode } from "@levelrail/services/node/change";
import { accepted, route } from "@/lib/api";
import { nodesReader } from "@/lib/nodes";

type Params = { id: string };

/**
 * `{"availability": "active"|"pause"|"drain", "labels": {...}}`, either or both (an admin of a whole
 * organization; a swarm only, else 409): recorded, then applied by the worker. 202 with the node.
 */
export const PATCH = route<Params>(async ({ ctx, params, body }) => accepted(await changeNode({ ctx, reader: nodesReader(), nodeId: params.id, input: await body() })));
