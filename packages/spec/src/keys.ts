/**
 * The one reconcile key type. Every producer (verbs through NOTIFY, Docker events, resync) formats
 * with `formatKey`, the worker parses with `parseKey` and routes with one exhaustive switch.
 * A service's key carries its id, never its name (names are unique only within an environment).
 */
export type ReconcileKey = { kind: "service"; id: string } | { kind: "ingress" } | { kind: "networks" } | { kind: "images" };

export const serviceKey = (id: string): ReconcileKey => ({ kind: "service", id });
export const INGRESS_KEY: ReconcileKey = { kind: "ingress" };
export const NETWORKS_KEY: ReconcileKey = { kind: "networks" };
export const IMAGES_KEY: ReconcileKey = { kind: "images" };

/** The wire form (a NOTIFY payload, a runner's queue key): `service:<id>`, `ingress`, `networks`, `images`. */
export function formatKey(key: ReconcileKey): string {
  switch (key.kind) {
    case "service":
      return `service:${key.id}`;
    case "ingress":
    case "networks":
    case "images":
      return key.kind;
  }
}

/** The key a wire form names, or null for anything else (an old or foreign payload is ignored, not guessed at). */
export function parseKey(text: string): ReconcileKey | null {
  if (text === "ingress") return INGRESS_KEY;
  if (text === "networks") return NETWORKS_KEY;
  if (text === "images") return IMAGES_KEY;
  const m = /^service:([A-Za-z0-9_-]{1,64})$/.exec(text);
  return m ? serviceKey(m[1]!) : null;
}

const SERVICE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a `levelrail.service` label (or a key's id) is a service id; an earlier version put the service's name there. */
export const isServiceId = (text: string) => SERVICE_ID.test(text);
