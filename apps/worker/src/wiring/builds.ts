import { join } from "node:path";
import { tmpdir } from "node:os";
import { deployBuilt } from "@levelrail/services/build/deploy-built";
import { envTargetOf, pgEnvStores } from "@levelrail/services/env/sources";
import { buildKey, formatKey } from "@levelrail/spec/keys";
import { pgBuildStore, pgPollStore, pgRegistryLogins } from "../build-store";
import { buildEnvFrom } from "../controllers/build/env";
import { gitClient } from "../controllers/build/git";
import { SourcePoller } from "../controllers/build/poll";
import { buildController } from "../controllers/build/reconcile";
import { assertLeads } from "../fence";
import { RunningBuilds } from "../controllers/build/running";
import type { Runner } from "../reconcile/runner";
import { keyTenants } from "../reconcile/tenants";
import type { WorkerOptions } from "../wiring";
import type { Shared } from "./controllers";

/** How long one git call (ls-remote, fetch) may take inside a build's own deadline. */
const GIT_TIMEOUT_MS = 120_000;

/**
 * The build runner (key `build:<id>`) with its store, git client, the registry of running builds
 * (cancels reach them while their key is locked) and the poller of sources that poll. Its slots
 * (`LEVELRAIL_BUILD_SLOTS`) go fairly by organization, apart from the deploy runner's.
 */
export function buildsFor(o: WorkerOptions, s: Shared) {
  // A deposed leader's builds write nothing more (their rows are the next leader's to mark interrupted).
  const store = pgBuildStore(o.db, o.keyring, s.fence);
  const polls = pgPollStore(o.db, s.fence);
  const workDir = o.builds?.workDir ?? join(tmpdir(), `levelrail-builds-${o.shortName}`);
  // The repository's host goes through the same address policy as webhooks and backup targets.
  const git = gitClient({ timeoutMs: GIT_TIMEOUT_MS, policy: { allowPrivate: o.allowPrivateTargets === true, panelHost: o.panelHost } });
  const running = new RunningBuilds((id) => store.cancelRequested(id), o.log);
  const stores = pgEnvStores(o.db, o.keyring);
  const fingerprintKey = o.builds?.fingerprintKey;
  const runner: Runner = s.runner(
    buildController({
      shortName: o.shortName,
      store,
      env: buildEnvFrom(stores, (id) => envTargetOf(o.db, id)),
      git,
      builder: o.builds?.builder ?? null,
      deployer: {
        deployBuilt: async (b) => {
          if (!fingerprintKey) throw new Error("this worker has no fingerprint key to deploy a build with");
          await assertLeads(o.db, s.fence);
          return deployBuilt(o.db, { keyring: o.keyring, fingerprintKey }, b);
        },
      },
      images: s.fleet,
      baseImages: { shortName: o.shortName, runtime: o.runtime, registryLogins: pgRegistryLogins(o.db, o.keyring), serviceOrgs: (id) => s.store.orgOf(id) },
      runner: s.runnerId,
      timeoutMs: (o.builds?.timeoutSeconds ?? 1800) * 1000,
      workDir,
      running,
      now: () => new Date(),
      wake: (key) => runner.enqueue(key),
    }),
    undefined,
    keyTenants({ build: (id) => store.orgOfBuild(id) }),
    o.builds?.slots ?? 2,
  );
  const poller = new SourcePoller({
    sources: polls,
    store,
    git,
    enqueue: (src, commit) => polls.enqueue(src, commit),
    knownHostsFile: (id) => join(workDir, "known_hosts", id),
    now: () => Date.now(),
    log: o.log,
    ...(o.builds?.pollTickMs ? { tickMs: o.builds.pollTickMs } : {}),
  });
  o.signal?.addEventListener("abort", () => running.stopAll(), { once: true });
  return { runner, running, poller, store, workDir, wake: (id: string) => runner.enqueue(formatKey(buildKey(id))) };
}
