import { z } from "zod";

// What an operator may ask of the installation's nodes (docs/operating/nodes-and-swarm.md): `PATCH /api/v1/nodes/{id}`
// records it, the worker's node controller applies it to the swarm and keeps it applied. The view
// of a node carries the change it was asked for and where that stands.

export const NODE_AVAILABILITIES = ["active", "pause", "drain"] as const;
export type NodeAvailabilityInput = (typeof NODE_AVAILABILITIES)[number];

/** The product's own node labels start with this; an operator's may not (placement of databases will use them). */
export const RESERVED_NODE_LABEL_PREFIX = "levelrail.";
export const MAX_NODE_LABELS = 64;
/**
 * The MTU of the interface a node talks to the others on, set by `levelrail node join` when it
 * measured it: an app's overlay network is made at the smallest of them less VXLAN's 50 bytes.
 */
export const NODE_MTU_LABEL = `${RESERVED_NODE_LABEL_PREFIX}mtu`;

/**
 * A label key an operator may set: letters, digits, `.`, `_`, `-` and `/`, starting and ending with
 * a letter or digit. Nothing that could end a placement constraint (`node.labels.<key>==<value>`).
 */
export const NODE_LABEL_KEY = /^[A-Za-z0-9](?:[A-Za-z0-9._/-]{0,126}[A-Za-z0-9])?$/;
/** A label value: printable, no `=` or `!` (a constraint's operators) and no spaces at its ends. */
export const NODE_LABEL_VALUE = /^(?:[^\s=!\p{Cc}](?:[^=!\p{Cc}]{0,254}[^\s=!\p{Cc}])?)?$/u;

/** A label key an operator may set (on a node, or in a service's placement): never the product's own `levelrail.*`. */
export const nodeLabelKey = z
  .string()
  .regex(NODE_LABEL_KEY, "must be 1–128 letters, digits, '.', '_', '-' or '/', starting and ending with a letter or digit")
  .refine((k) => !k.toLowerCase().startsWith(RESERVED_NODE_LABEL_PREFIX), `must not start with '${RESERVED_NODE_LABEL_PREFIX}' (the product's own labels)`);
/** A label value an operator may set or place on. */
export const nodeLabelValue = z.string().regex(NODE_LABEL_VALUE, "must be at most 256 printable characters, without '=', '!' or spaces at either end");

/** `PATCH /api/v1/nodes/{id}`: either or both. `labels` replaces the operator's labels whole (`{}` clears them). */
export const nodePatchInput = z
  .strictObject({
    availability: z.enum(NODE_AVAILABILITIES, { error: "must be active, pause or drain" }).optional(),
    labels: z
      .record(nodeLabelKey, nodeLabelValue)
      .refine((l) => Object.keys(l).length <= MAX_NODE_LABELS, `must have at most ${MAX_NODE_LABELS} labels`)
      .optional(),
    /**
     * A drain of a node that databases are pinned to stops them (their data is on that node): the
     * API refuses it (409 naming this field) unless this says so.
     */
    stopDatabases: z.boolean({ error: "must be true or false" }).optional(),
  })
  .refine((p) => p.availability !== undefined || p.labels !== undefined, { error: "give availability, labels or both" });
export type NodePatchInput = z.infer<typeof nodePatchInput>;

/** Where an asked-for change stands: not yet on the swarm, on it, or refused by it (`error` says why). */
export type NodeChangeState = "pending" | "applied" | "failed";

/** The change last asked of a node, as `GET /api/v1/nodes` shows it beside what the engine reports. */
export interface NodeChangeView {
  /** null: not asked (the node's own stays). */
  availability: NodeAvailabilityInput | null;
  /** null: not asked; else the operator's labels as asked (the product's own `levelrail.*` are kept besides). */
  labels: Record<string, string> | null;
  state: NodeChangeState;
  error: string | null;
  /** ISO time of the request. */
  requestedAt: string;
  /** Who asked (an email, or `token <name> of <email>`). */
  requestedBy: string | null;
}
