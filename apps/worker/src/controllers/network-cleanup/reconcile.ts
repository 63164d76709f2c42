import type { Runtime } from "@levelrail/docker";
import { Labels, carriesLabels, instanceFilter, networkLabels } from "@levelrail/spec/naming";
import type { Controller } from "../../reconcile/controller";

export interface AppStore {
  /** Ids of every app that still exists. */
  appIds(): Promise<Set<string>>;
}

export interface NetworkCleanupOptions {
  shortName: string;
  runtime: Runtime;
  store: AppStore;
}

/**
 * Whole-fleet: removes every network of ours whose app is gone, and nothing
 * else. An app with no services keeps its network. Containers still attached
 * are disconnected first; a removal that fails is retried with backoff.
 */
export function networkCleanupController(o: NetworkCleanupOptions): Controller {
  return {
    name: "network-cleanup",
    async reconcile() {
      const apps = await o.store.appIds();
      const networks = await o.runtime.listNetworks(instanceFilter(o.shortName));
      for (const net of networks) {
        const appId = net.labels[Labels.app];
        if (!appId || apps.has(appId)) continue;
        // By id, and only while it still carries our labels: never whatever holds its name by now.
        const current = await o.runtime.inspectNetwork(net.id);
        if (!current || !carriesLabels(current.labels, networkLabels(o.shortName, appId))) continue;
        for (const c of current.containers) await o.runtime.disconnectNetwork(net.id, c);
        await o.runtime.removeNetwork(net.id);
      }
    },
  };
}
