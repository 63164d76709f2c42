import { listNodes } from "@levelrail/services/node/list";
import { json, route } from "@/lib/api";
import { nodesReader } from "@/lib/nodes";

/** The installation's nodes (admin): `{engine: "single", nodes: [this engine]}`, or on a swarm manager `{engine: "swarm", nodes}`. */
export const GET = route(async ({ ctx }) => json(await listNodes({ ctx, reader: nodesReader() })));
