import * as dnsPacket from "dns-packet";
import type { ActiveEntry, DataPlaneState } from "@levelrail/spec/dataplane";

/**
 * The names the data plane answers, all under the mesh zone (`<short>.internal`):
 *
 * - `<service>.<app>.<zone>` (A): the service's active container. On an app network's gateway
 *   only that app's services answer. On loopback (tools and tests; Caddy asks by domain and
 *   container) only a name exactly one service has: app names repeat across environments, and
 *   one environment's container is never the answer for another's (an ambiguous name: NXDOMAIN).
 * - `<domain>._route.<zone>` (SRV, loopback only): where ingress sends a request for that Host:
 *   the active container's `_ctr` name and port, or the data plane's own fallback page.
 * - `<container>._ctr.<zone>` (A, loopback only): one container's address. Caddy dials this name,
 *   so each container gets its own connection pool and a switch never reuses an old connection.
 *
 * On a swarm an entry carries its release's ready tasks: the mesh name answers every task's address,
 * a domain's SRV one target per task (`<task id>._ctr.<zone>`, so Caddy balances over them, one
 * connection pool each), and a task's name its address as the worker published it.
 *
 * App and service names are DNS labels (they never start with `_`), so the three cannot collide.
 */
export const ROUTE_LABEL = "_route";
export const CONTAINER_LABEL = "_ctr";
export const FALLBACK_CONTAINER = "_fallback";

/** Who is asking: Caddy on loopback, or the containers of one app on its network's gateway. */
export type Scope = { kind: "loopback" } | { kind: "app"; appId: string };

/** The state, indexed the ways queries look it up (built once per state change). */
export interface StateIndex {
  /** `<service>.<app>` → entries (one per environment that has such an app and service). */
  byMeshName: Map<string, ActiveEntry[]>;
  byContainer: Map<string, ActiveEntry>;
  /** A swarm task's id → its address (entries with `tasks`). */
  byTask: Map<string, string>;
  /** domain → the entry of the service that has it; null when that service has no active container. */
  byDomain: Map<string, ActiveEntry | null>;
  /**
   * Containers and swarm tasks a switch made inactive, still answering their own `_ctr` name until
   * `until` (ms since the epoch): Caddy's cached route (up to its 100 ms refresh) may still name one,
   * and a name that failed would cost that request a dial retry (100 ms). A draining container still
   * serves; one removed has no address (NXDOMAIN, as before).
   */
  retired: Retired<ActiveEntry>;
  /** Swarm tasks a switch made inactive: their addresses, as `retired`. */
  retiredTasks: Retired<string>;
}

/** Names no longer active, each with what it answered and until when (ms since the epoch) it still does. */
type Retired<T> = Map<string, { value: T; until: number }>;

/** How long a container or task made inactive keeps answering its `_ctr` name (many times Caddy's route refresh). */
export const RETIRED_MS = 5_000;

/** `state` indexed; `previous` (the index it replaces) hands over what stopped being active, for `RETIRED_MS` from `now`. */
export function indexState(state: DataPlaneState, previous?: StateIndex, now = Date.now()): StateIndex {
  const byMeshName = new Map<string, ActiveEntry[]>();
  const byContainer = new Map<string, ActiveEntry>();
  const byTask = new Map<string, string>();
  for (const e of Object.values(state.services)) {
    const key = `${e.service}.${e.app}`;
    byMeshName.set(key, [...(byMeshName.get(key) ?? []), e]);
    byContainer.set(e.container, e);
    for (const t of e.tasks ?? []) byTask.set(t.name, t.address);
  }
  const byDomain = new Map<string, ActiveEntry | null>();
  for (const [domain, serviceId] of Object.entries(state.domains)) byDomain.set(domain.toLowerCase(), state.services[serviceId] ?? null);
  const retired = previous ? retire(byContainer, previous.byContainer, previous.retired, now, (e) => !e.tasks) : new Map();
  const retiredTasks = previous ? retire(byTask, previous.byTask, previous.retiredTasks, now) : new Map();
  return { byMeshName, byContainer, byTask, byDomain, retired, retiredTasks };
}

/** What was retired and still answers, plus what `before` had active and `active` has no more (those of it `keep` says), from `now` for `RETIRED_MS`. */
function retire<T>(active: Map<string, T>, before: Map<string, T>, retiredBefore: Retired<T>, now: number, keep: (value: T) => boolean = () => true): Retired<T> {
  const out: Retired<T> = new Map();
  for (const [name, r] of retiredBefore) if (r.until > now && !active.has(name)) out.set(name, r);
  for (const [name, value] of before) if (keep(value) && !active.has(name)) out.set(name, { value, until: now + RETIRED_MS });
  return out;
}

export interface AnswerContext {
  zone: string;
  index: StateIndex;
  scope: Scope;
  /** The container's address on its app network, or null when it is not running there. */
  address(container: string, appId: string): Promise<string | null>;
  /** Where the fallback page is served (loopback), for domains that have no ready container. */
  fallbackPort: number;
  ttlSeconds: number;
  /**
   * On a swarm: whether a task answered its last connect (`TaskLiveness`). A release's tasks that
   * did not are left out of the answers, unless none did (then all are answered, as published).
   */
  live?: (address: string, port: number) => boolean;
}

/** The entry's tasks that answer (all of them when none does, or nothing is probed). */
function liveTasks(entry: ActiveEntry, c: AnswerContext): { name: string; address: string }[] {
  const tasks = entry.tasks ?? [];
  if (!c.live) return tasks;
  const live = tasks.filter((t) => c.live!(t.address, entry.port));
  return live.length > 0 ? live : tasks;
}

const REFUSED = 5;
const NXDOMAIN = 3;

type Found = { type: "A"; addresses: string[] } | { type: "SRV"; targets: { target: string; port: number }[] } | null;

/** An entry's addresses: its swarm tasks' as published, or its container's as inspected. */
async function addressesOf(entry: ActiveEntry, c: AnswerContext): Promise<string[]> {
  if (entry.tasks) return liveTasks(entry, c).map((t) => t.address);
  const address = await c.address(entry.container, entry.appId);
  return address ? [address] : [];
}

/** The entry a mesh name means in `scope`: its app's own on a gateway; on loopback the only one, or none when names repeat. */
function meshEntry(entries: ActiveEntry[], scope: Scope): ActiveEntry | null {
  if (scope.kind === "app") return entries.find((e) => e.appId === scope.appId) ?? null;
  return entries.length === 1 ? entries[0]! : null;
}

/** Decides what a name means: null for a name in our zone that names nothing (NXDOMAIN). */
async function lookup(name: string, qtype: string, c: AnswerContext): Promise<Found | "nodata"> {
  const rel = name.slice(0, -(c.zone.length + 1)); // the labels before the zone
  const labels = rel.split(".");
  const loopback = c.scope.kind === "loopback";

  if (labels.length === 2 && !labels[0]!.startsWith("_") && !labels[1]!.startsWith("_")) {
    const [service, app] = labels as [string, string];
    const entry = meshEntry(c.index.byMeshName.get(`${service}.${app}`) ?? [], c.scope);
    if (!entry) return null;
    if (qtype !== "A") return "nodata";
    const addresses = await addressesOf(entry, c);
    return addresses.length ? { type: "A", addresses } : null;
  }
  if (!loopback) return null;

  const last = labels[labels.length - 1];
  if (last === ROUTE_LABEL && labels.length >= 2) {
    if (qtype !== "SRV") return "nodata";
    const domain = labels.slice(0, -1).join(".");
    const entry = c.index.byDomain.get(domain);
    const fallback = { type: "SRV" as const, targets: [{ target: `${FALLBACK_CONTAINER}.${CONTAINER_LABEL}.${c.zone}`, port: c.fallbackPort }] };
    if (!entry) return fallback;
    // A swarm release: one target per ready task (each its own name, so each its own connection pool).
    if (entry.tasks) return entry.tasks.length ? { type: "SRV", targets: liveTasks(entry, c).map((t) => ({ target: `${t.name}.${CONTAINER_LABEL}.${c.zone}`, port: entry.port })) } : fallback;
    const up = await c.address(entry.container, entry.appId);
    return up ? { type: "SRV", targets: [{ target: `${entry.container}.${CONTAINER_LABEL}.${c.zone}`, port: entry.port }] } : fallback;
  }
  if (last === CONTAINER_LABEL && labels.length === 2) {
    if (qtype !== "A") return "nodata";
    if (labels[0] === FALLBACK_CONTAINER) return { type: "A", addresses: ["127.0.0.1"] };
    const name = labels[0]!;
    const now = Date.now();
    const left = c.index.retiredTasks.get(name);
    const task = c.index.byTask.get(name) ?? (left && left.until > now ? left.value : undefined);
    if (task) return { type: "A", addresses: [task] };
    const gone = c.index.retired.get(name);
    const entry = c.index.byContainer.get(name) ?? (gone && gone.until > now ? gone.value : undefined);
    const address = entry && !entry.tasks ? await c.address(entry.container, entry.appId) : null;
    return address ? { type: "A", addresses: [address] } : null;
  }
  return null;
}

/** REFUSED for one query packet (a source the socket does not serve); null for garbage. */
export function refuse(msg: Buffer): Buffer | null {
  let query: dnsPacket.Packet;
  try {
    query = dnsPacket.decode(msg);
  } catch {
    return null;
  }
  if (!query.questions?.[0] || query.type === "response") return null;
  return dnsPacket.encode({ id: query.id, type: "response", questions: query.questions, flags: REFUSED });
}

/** Builds the response to one query packet; null for garbage (no reply at all). */
export async function answer(msg: Buffer, c: AnswerContext): Promise<Buffer | null> {
  let query: dnsPacket.Packet;
  try {
    query = dnsPacket.decode(msg);
  } catch {
    return null;
  }
  const q = query.questions?.[0];
  if (!q || query.type === "response") return null;
  const name = q.name.toLowerCase().replace(/\.$/, "");
  const base = { id: query.id, type: "response" as const, questions: query.questions };
  // Outside our zone: refuse, so Docker's resolver asks the next server (the host's).
  if (!name.endsWith(`.${c.zone}`)) return dnsPacket.encode({ ...base, flags: dnsPacket.RECURSION_DESIRED | REFUSED });

  const found = await lookup(name, q.type, c);
  if (found === null) return dnsPacket.encode({ ...base, flags: dnsPacket.AUTHORITATIVE_ANSWER | NXDOMAIN });
  const answers: dnsPacket.Answer[] =
    found === "nodata"
      ? []
      : found.type === "A"
        ? found.addresses.map((address): dnsPacket.Answer => ({ type: "A", name: q.name, ttl: c.ttlSeconds, class: "IN", data: address }))
        : found.targets.map(({ target, port }): dnsPacket.Answer => ({ type: "SRV", name: q.name, ttl: c.ttlSeconds, class: "IN", data: { priority: 0, weight: 1, port, target } }));
  return dnsPacket.encode({ ...base, flags: dnsPacket.AUTHORITATIVE_ANSWER, answers });
}
