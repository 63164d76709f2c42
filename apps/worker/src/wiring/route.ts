import { DOMAINS_KEY, INGRESS_KEY, NETWORKS_KEY, NODES_KEY, PREVIEWS_KEY, type ReconcileKey, buildKey, databaseKey, formatKey, isServiceId, notificationsKey, serviceKey } from "@levelrail/spec/keys";
import type { ContainerInformer } from "../containers/informer";
import type { pgDatabaseStore } from "../database-store";
import type { DesiredSnapshot } from "../desired-snapshot";
import type { StatePublisher } from "../dataplane/publisher";
import type { Runner } from "../reconcile/runner";

export interface Runners {
  application: Runner;
  databases: Runner;
  networks: Runner;
  images: Runner;
  ingress: Runner | null;
  domains: Runner;
  /** Previews of pull requests; null when the worker runs without them. */
  previews: Runner | null;
  builds: Runner;
  /** Each organization's notification outbox (`notifications:<orgId>`). */
  notifications: Runner;
  /** The swarm's nodes as operators asked; null when the worker drives no swarm port. */
  nodes: Runner | null;
  /** A build's key woke: a build running here stops if a cancel was asked (its key is locked while it runs). */
  buildParts: { running: { poke(id: string): void } };
}

/**
 * The one routing switch: each reconcile key to its controller's runner (a service also rechecks
 * ingress). A service's key comes from a change of its desired state: a resync's row of it is stale.
 */
export function router(r: Runners, desired: Pick<DesiredSnapshot, "invalidate">) {
  return (key: ReconcileKey) => {
    switch (key.kind) {
      case "service":
        desired.invalidate(key.id);
        r.application.enqueue(formatKey(key));
        r.ingress?.enqueue(formatKey(INGRESS_KEY)); // domains may have changed
        r.domains.enqueue(formatKey(DOMAINS_KEY)); // a new domain may need a proof
        return;
      case "database":
      case "backup":
        r.databases.enqueue(formatKey(key));
        return;
      case "networks":
        r.networks.enqueue(formatKey(key));
        return;
      case "images":
        r.images.enqueue(formatKey(key));
        return;
      case "ingress":
        r.ingress?.enqueue(formatKey(key));
        return;
      case "domains":
        r.domains.enqueue(formatKey(key));
        return;
      case "previews":
      case "preview-sweep":
        r.previews?.enqueue(formatKey(key));
        return;
      case "nodes":
        r.nodes?.enqueue(formatKey(key));
        return;
      case "build":
        r.builds.enqueue(formatKey(key));
        r.buildParts.running.poke(key.id);
        return;
      case "notifications":
        r.notifications.enqueue(formatKey(key));
        return;
      default: {
        const unknown: never = key;
        throw new Error(`no controller for reconcile key ${JSON.stringify(unknown)}`);
      }
    }
  };
}

/**
 * The resync: the informer's relist (one engine call; without the engine it throws, so no pass runs
 * on a stale index), then every service (and every container of a service that no longer exists, so
 * it gets removed), every database, the networks and ingress, every organization's outbox with work
 * in it; `passed` is told when it finished.
 * Every service's desired state is read in one query (`desired.load`), which their passes take.
 */
export function resyncer(p: {
  informer: ContainerInformer;
  desired: Pick<DesiredSnapshot, "load">;
  databaseStore: ReturnType<typeof pgDatabaseStore>;
  /** Queued and running builds: a stopped worker's running ones are failed as interrupted. */
  openBuilds: () => Promise<string[]>;
  /** Organizations with pending deliveries or crash loops to enqueue (a worker that was down, a wake-up lost). */
  notificationOrgs: () => Promise<string[]>;
  dataPlane: StatePublisher;
  application: Runner;
  route: (key: ReconcileKey) => void;
  passed: () => Promise<void>;
}) {
  return async () => {
    await p.informer.relist();
    const known = await p.desired.load();
    // A label that is no id is an earlier version's (by service name): its service's own pass adopts it.
    const ids = new Set([...known, ...[...p.informer.serviceIds()].filter(isServiceId)]);
    // A service deleted while no worker ran: its data-plane entry goes.
    await p.dataPlane.retain(new Set(known));
    for (const id of ids) p.application.enqueue(formatKey(serviceKey(id)));
    // Every database (and every deleted one still to tear down); their passes wake their open backups.
    for (const id of await p.databaseStore.databaseIds()) p.route(databaseKey(id));
    for (const id of await p.openBuilds()) p.route(buildKey(id));
    for (const id of await p.notificationOrgs()) p.route(notificationsKey(id));
    p.route(NETWORKS_KEY);
    p.route(INGRESS_KEY);
    p.route(DOMAINS_KEY);
    p.route(PREVIEWS_KEY);
    p.route(NODES_KEY); // a node changed by hand on the engine is put back as asked
    await p.passed();
  };
}
