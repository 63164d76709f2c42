/**
 * The one reconcile key type. Every producer (verbs through NOTIFY, Docker events, resync) formats
 * with `formatKey`, the worker parses with `parseKey` and routes with one exhaustive switch.
 * A service's key carries its id, never its name (names are unique only within an environment).
 */
export type ReconcileKey =
  | { kind: "service"; id: string }
  | { kind: "database"; id: string }
  | { kind: "backup"; id: string }
  | { kind: "build"; id: string }
  | { kind: "notifications"; id: string }
  | { kind: "ingress" }
  | { kind: "networks" }
  | { kind: "images" }
  | { kind: "domains" }
  | { kind: "previews" }
  | { kind: "preview-sweep" }
  | { kind: "nodes" };

export const serviceKey = (id: string): ReconcileKey => ({ kind: "service", id });
/** A managed database: its container, volumes, attachments, schedule and restores. */
export const databaseKey = (id: string): ReconcileKey => ({ kind: "database", id });
/** One backup run (or its verification again). */
export const backupKey = (id: string): ReconcileKey => ({ kind: "backup", id });
/** One build of a git-sourced service (docs/operating/git-builds-and-previews.md#builds). */
export const buildKey = (id: string): ReconcileKey => ({ kind: "build", id });
/** One organization's notification outbox: its due deliveries sent, its crash loops enqueued. */
export const notificationsKey = (orgId: string): ReconcileKey => ({ kind: "notifications", id: orgId });
export const INGRESS_KEY: ReconcileKey = { kind: "ingress" };
export const NETWORKS_KEY: ReconcileKey = { kind: "networks" };
export const IMAGES_KEY: ReconcileKey = { kind: "images" };
/** Every domain's ownership proof: the worker checks the due ones. */
export const DOMAINS_KEY: ReconcileKey = { kind: "domains" };
/** Every preview: clone, route, build, report, delete (docs/operating/git-builds-and-previews.md#previews-of-pull-requests). */
export const PREVIEWS_KEY: ReconcileKey = { kind: "previews" };
/** The previews' sweep: time to live and the providers' open requests; on a schedule. */
export const PREVIEW_SWEEP_KEY: ReconcileKey = { kind: "preview-sweep" };

/** The swarm's nodes: what operators asked of them (availability, labels), applied and kept (docs/operating/nodes-and-swarm.md). */
export const NODES_KEY: ReconcileKey = { kind: "nodes" };

/** The wire form (a NOTIFY payload, a runner's queue key): `service:<id>`, `database:<id>`, `backup:<id>`, `build:<id>`, `notifications:<orgId>`, `ingress`, `networks`, `images`, `domains`, `previews`, `preview-sweep`, `nodes`. */
export function formatKey(key: ReconcileKey): string {
  switch (key.kind) {
    case "service":
    case "database":
    case "backup":
    case "build":
    case "notifications":
      return `${key.kind}:${key.id}`;
    case "ingress":
    case "networks":
    case "images":
    case "domains":
    case "previews":
    case "preview-sweep":
    case "nodes":
      return key.kind;
  }
}

/** The key a wire form names, or null for anything else (an old or foreign payload is ignored, not guessed at). */
export function parseKey(text: string): ReconcileKey | null {
  if (text === "ingress") return INGRESS_KEY;
  if (text === "networks") return NETWORKS_KEY;
  if (text === "images") return IMAGES_KEY;
  if (text === "domains") return DOMAINS_KEY;
  if (text === "previews") return PREVIEWS_KEY;
  if (text === "preview-sweep") return PREVIEW_SWEEP_KEY;
  if (text === "nodes") return NODES_KEY;
  const m = /^(service|database|backup|build|notifications):([A-Za-z0-9_-]{1,64})$/.exec(text);
  if (!m) return null;
  const id = m[2]!;
  switch (m[1]) {
    case "service":
      return serviceKey(id);
    case "database":
      return databaseKey(id);
    case "build":
      return buildKey(id);
    case "notifications":
      return notificationsKey(id);
    default:
      return backupKey(id);
  }
}

const SERVICE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a `levelrail.service` label (or a key's id) is a service id; an earlier version put the service's name there. */
export const isServiceId = (text: string) => SERVICE_ID.test(text);
