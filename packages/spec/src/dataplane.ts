import { z } from "zod";

/**
 * What the data plane (the mesh DNS process, which Caddy and the app containers ask) needs to
 * answer without the control plane: the worker writes it to `<data dir>/dataplane/state.json`
 * (atomically, a whole file at a time), the data-plane process reads it and keeps answering from
 * its last copy while the worker and PostgreSQL are gone. Keyed by service id.
 */
export const activeEntrySchema = z.object({
  appId: z.string().min(1),
  /** The app's name: `<service>.<app>.<zone>` is the mesh name (answered only on that app's network). */
  app: z.string().min(1),
  service: z.string().min(1),
  /** The active container's name; its address is inspected by the data plane (it changes when dockerd restarts). */
  container: z.string().min(1),
  /** The port the container serves on (ingress dials it). */
  port: z.number().int().min(1).max(65535),
  /**
   * On a swarm (docs/operating/nodes-and-swarm.md): the release's ready tasks, each by its task id (a DNS label) and its
   * address on the app's overlay; `container` is then the release's swarm service. The data plane
   * answers these addresses as they are (a task's address changes only with a new task, which the
   * worker publishes), where a container's is inspected.
   */
  tasks: z
    .array(z.object({ name: z.string().regex(/^[a-z0-9]{1,63}$/), address: z.ipv4() }))
    .optional(),
});
export type ActiveEntry = z.infer<typeof activeEntrySchema>;

export const dataPlaneStateSchema = z.object({
  version: z.literal(1),
  /** Grows with every write, so a reader can tell it has the newest. */
  generation: z.number().int().min(0),
  /** serviceId → its active container. */
  services: z.record(z.string(), activeEntrySchema),
  /** domain (lower case) → serviceId: what ingress routes where. */
  domains: z.record(z.string(), z.string()),
});
export type DataPlaneState = z.infer<typeof dataPlaneStateSchema>;

export const emptyDataPlaneState = (): DataPlaneState => ({ version: 1, generation: 0, services: {}, domains: {} });

/** Where, under the data dir, the state file lives. */
export const DATAPLANE_DIR = "dataplane";
export const DATAPLANE_STATE_FILE = "state.json";

/** What the application controller tells the data plane (the worker's implementation writes the state file). */
export interface MeshPort {
  /** The service's active container, or null (none serves: the mesh name stops answering). Resolves once written. */
  setActive(serviceId: string, entry: ActiveEntry | null): Promise<void>;
}

/**
 * Set by ingress (Caddy) on every request it forwards, replacing any a client sent: the data plane
 * serves its health and TLS `ask` only to a request without it (and from loopback), whatever the
 * Host header says.
 */
export const INGRESS_HEADER = "X-Levelrail-Ingress";

// The data plane on every node of a swarm (docs/operating/nodes-and-swarm.md#the-data-plane-on-every-node): each worker node's agent runs an edge of
// its own (holder, Caddy, both mesh DNS replicas) and keeps it a copy of the manager's, which it
// reads from the manager's mesh DNS on an overlay only the manager's edge and the agents are on.

/** On a swarm: the overlay of the manager's edge and the node agents, and nothing else. */
export const controlNetworkName = (shortName: string) => `${shortName}-control`;
/** Its `levelrail.role` label. */
export const CONTROL_ROLE = "control";
/** The manager's edge holder's alias there: where an agent finds the feed. */
export const edgeFeedHost = (shortName: string) => `${shortName}-edge-feed`;
/** The node agents' global swarm service (every node but the manager runs one). */
export const nodeAgentName = (shortName: string) => `${shortName}-node-agent`;
/** The port the manager's mesh DNS serves the edge feed on, on its control-overlay address only. */
export const EDGE_FEED_PORT = 7440;
export const EDGE_FEED_PATH = "/v1/edge";
/**
 * Beside the state file on the manager: the token every request to the edge feed must carry
 * (`Authorization: Bearer …`), made by the launcher, handed to the node agents as a swarm secret.
 */
export const EDGE_FEED_TOKEN_FILE = "edge-feed.token";
/** Where a node agent reads it: the swarm secret's file in its task. */
export const EDGE_FEED_TOKEN_SECRET_FILE = "/run/secrets/edge-feed-token";
/** Beside the state file: the Caddy config the worker loaded into the manager's edge (every node's edge loads the same). */
export const EDGE_CADDY_FILE = "edge-caddy.json";

/** What an agent reads: the data plane's state, the edge's Caddy config, and the app overlays to join. */
export const edgeFeedSchema = z.object({
  state: dataPlaneStateSchema,
  caddy: z.record(z.string(), z.unknown()).nullable(),
  networks: z.array(z.string()),
});
export type EdgeFeed = z.infer<typeof edgeFeedSchema>;

/**
 * Beside the state file, written by the manager's mesh DNS: which state generation each node's
 * agent last applied (its edge's state file written and its Caddy loaded), and when it last asked.
 * The worker removes a release's old tasks only once every agent that asked lately has the switch.
 */
export const EDGE_ACKS_FILE = "edge-acks.json";
export const edgeAcksSchema = z.object({
  nodes: z.record(z.string(), z.object({ generation: z.number().int(), seenAt: z.number() })),
});
export type EdgeAcks = z.infer<typeof edgeAcksSchema>;

/** Under the dataplane folder: each node agent's last readings of its node's task containers (`<node id>.json`). */
export const NODE_STATS_DIR = "node-stats";
export const EDGE_STATS_PATH = "/v1/stats";
const cpuCountersSchema = z.object({ containerNs: z.number(), systemNs: z.number(), onlineCpus: z.number() });
export const taskReadingSchema = z.object({
  taskId: z.string().regex(/^[a-z0-9]{1,64}$/),
  container: z.string().min(1).max(300),
  stats: z.object({
    cpu: cpuCountersSchema,
    precpu: cpuCountersSchema.nullable(),
    memoryBytes: z.number(),
    memoryLimitBytes: z.number().nullable(),
    netRxBytes: z.number(),
    netTxBytes: z.number(),
  }),
});
/** What an agent posts; the manager's mesh DNS stores it with the time it arrived (`at`, ms). */
export const nodeStatsSchema = z.object({ readings: z.array(taskReadingSchema).max(5_000) });
export const storedNodeStatsSchema = nodeStatsSchema.extend({ at: z.number() });
export type StoredNodeStats = z.infer<typeof storedNodeStatsSchema>;
