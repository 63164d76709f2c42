import { DOMAINS_KEY, INGRESS_KEY, NETWORKS_KEY, type ReconcileKey, databaseKey, formatKey, isServiceId, serviceKey } from "@levelrail/spec/keys";
import type { ContainerInformer } from "../containers/informer";
import type { pgDatabaseStore } from "../database-store";
import type { StatePublisher } from "../dataplane/publisher";
import type { Runner } from "../reconcile/runner";
import type { pgServiceStore } from "../store";

export interface Runners {
  application: Runner;
  databases: Runner;
  networks: Runner;
  images: Runner;
  ingress: Runner | null;
  domains: Runner;
}

/** The one routing switch: each reconcile key to its controller's runner (a service also rechecks ingress). */
export function router(r: Runners) {
  return (key: ReconcileKey) => {
    switch (key.kind) {
      case "service":
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
 * it gets removed), every database, the networks and ingress; `passed` is told when it finished.
 */
export function resyncer(p: {
  informer: ContainerInformer;
  store: ReturnType<typeof pgServiceStore>;
  databaseStore: ReturnType<typeof pgDatabaseStore>;
  dataPlane: StatePublisher;
  application: Runner;
  route: (key: ReconcileKey) => void;
  passed: () => Promise<void>;
}) {
  return async () => {
    await p.informer.relist();
    const known = await p.store.listServiceIds();
    // A label that is no id is an earlier version's (by service name): its service's own pass adopts it.
    const ids = new Set([...known, ...[...p.informer.serviceIds()].filter(isServiceId)]);
    // A service deleted while no worker ran: its data-plane entry goes.
    await p.dataPlane.retain(new Set(known));
    for (const id of ids) p.application.enqueue(formatKey(serviceKey(id)));
    // Every database (and every deleted one still to tear down); their passes wake their open backups.
    for (const id of await p.databaseStore.databaseIds()) p.route(databaseKey(id));
    p.route(NETWORKS_KEY);
    p.route(INGRESS_KEY);
    p.route(DOMAINS_KEY);
    await p.passed();
  };
}
