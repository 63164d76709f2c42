import type { MeshPort } from "@levelrail/spec/dataplane";
import type { EnvStores } from "@levelrail/spec/env";
import { isServiceId, parseKey } from "@levelrail/spec/keys";
import { networkName } from "@levelrail/spec/naming";
import { redactError } from "@levelrail/spec/redact";
import { type Controller, type ReconcileResult, UNSLOTTED } from "../../reconcile/controller";
import { TerminalError } from "../../reconcile/errors";
import type { SubnetPool } from "../../network/pool";
import { type ServiceEventRecorder, crashLoopRecording } from "./crash-loop";
import { execute } from "./execute";
import type { HookRecorder } from "./hooks";
import { observe, serviceRedactor } from "./observe";
import { passRuntime } from "./pass-runtime";
import { changedStatusOnly, redactingHooks, redactingStatus, reportingReplicas } from "./redacting";
import { plan } from "./plan";
import type { ApplicationEngine, ContainerIndex, DatabaseAttacher, DeployRecorder, PullRecorder, RegistryStore, ServiceStore, StatusWriter } from "./ports";
import type { ProberManager } from "./prober";
import type { RegistryConfirmations } from "./image";

export interface ApplicationControllerOptions {
  shortName: string;
  runtime: ApplicationEngine;
  /** The engine's containers in memory (the container informer); the controller lists none itself. */
  containers: ContainerIndex;
  store: ServiceStore;
  status: StatusWriter;
  /** Probes starting containers outside the pass and wakes the service's key (its `wake` goes to this controller's runner). */
  prober: Pick<ProberManager, "register" | "forget" | "result">;
  /** How soon to look again at a started container that has no address yet (rare). */
  probeIntervalMs: number;
  /** Env tiers: absent organization/project/environment stores are skipped; absent secret/storage/database stores fail a service that declares one. */
  envStores: EnvStores;
  /** Registry logins; a service that declares one fails when this is absent. */
  registry: RegistryStore | undefined;
  /** Where hook runs are kept; without one, hooks still run and gate the deploy. */
  hooks: HookRecorder | undefined;
  /** Timeout for a hook whose service sets none. */
  defaultHookTimeoutSeconds: number;
  /** The longest one image pull may take (`LEVELRAIL_PULL_TIMEOUT_SECONDS`); default 600. */
  pullTimeoutSeconds?: number;
  /** Where app networks get their subnets. */
  networkPool: SubnetPool;
  /** The data plane: told which container is active for each service (by id). */
  mesh: MeshPort;
  /**
   * Nameservers after the mesh DNS, for every name outside its zone (it refuses them, and Docker's
   * embedded DNS asks the next): the host's. Absent: containers resolve mesh names only.
   */
  upstreamDns?: string[];
  /** How long an old container keeps running after the switch, for requests in flight. */
  drainMs: number;
  /** Deploy metrics; without one, deploys work and are not measured. */
  deploys: DeployRecorder | undefined;
  /** Where pulls that brought an image to the host are recorded; without one, nothing pulled is ever collected. */
  pulls: PullRecorder | undefined;
  /** A service's organization (null: no such service), to tell whose a built image is; absent: a built image's label alone decides. */
  serviceOrgs?: ((serviceId: string) => Promise<string | null>) | undefined;
  /** Registry confirmations of cached images, kept a short while (absent: every deploy asks the registry). */
  confirmations?: RegistryConfirmations | undefined;
  /** Joins a service's managed databases to its app network before its containers start; absent: none. */
  databases?: DatabaseAttacher | undefined;
  /** Where a crash loop's start and end are recorded (with the container's last lines, redacted); absent: not recorded. */
  events?: ServiceEventRecorder | undefined;
  /** The engine's name (its hostname, as the Nodes page shows it): where the status says the active container runs. Absent or unknown yet: no replicas reported. */
  nodeName?: () => string | undefined;
  now?: () => number;
}

const DEFAULT_PULL_TIMEOUT_SECONDS = 600;

/**
 * Converges one service (key `service:<id>`) to its current release: one running, ready container
 * named from the release's image and nonce. Each pass observes, plans the one next step (pure) and
 * executes it.
 */
export function applicationController(o: ApplicationControllerOptions): Controller {
  const now = o.now ?? Date.now;
  const deps = { ...o, upstreamDns: o.upstreamDns ?? [], now };
  return {
    name: "application",
    async reconcile(text, pass = UNSLOTTED): Promise<ReconcileResult | void> {
      const key = parseKey(text);
      // A key that names no service can never converge, whatever is retried.
      if (key?.kind !== "service") throw new TerminalError(`not a service key: ${JSON.stringify(text)}`);
      // An earlier version labelled containers with the service's name; such a label is not an id,
      // and acting on it would remove a live container its service still adopts.
      if (!isServiceId(key.id)) throw new TerminalError(`not a service id: ${JSON.stringify(key.id)}`);
      const { desired, observed, redact } = await observe(deps, key.id);
      // A crash loop's start and end become events, once per transition.
      const svc = desired.service;
      // Only a status that differs from the stored one is written (compared after redaction, as stored).
      // Where the active container runs (its node and its address on the app's network), read from the index when the status is written.
      const node = deps.nodeName?.();
      const changed = changedStatusOnly(deps.status, svc?.storedStatus);
      const writes = svc && node ? reportingReplicas(changed, deps.containers, node, networkName(deps.shortName, svc.appId)) : changed;
      const status =
        deps.events && svc
          ? crashLoopRecording(redactingStatus(writes, redact), {
              orgId: svc.orgId,
              last: svc.lastEvent ?? null,
              containers: observed.containers,
              runtime: deps.runtime,
              events: deps.events,
              redactor: (c) => serviceRedactor(deps, svc, c),
            })
          : redactingStatus(writes, redact);
      // What the pass stores (statuses, release messages, hook output) or throws (logged by the
      // runner) never holds the service's secret values.
      // Waiting on a hook or a pull gives the runner's slot up meanwhile; a pull has a deadline.
      const recording = {
        ...deps,
        runtime: passRuntime(deps.runtime, pass, deps.pullTimeoutSeconds ?? DEFAULT_PULL_TIMEOUT_SECONDS),
        status,
        hooks: deps.hooks && redactingHooks(deps.hooks, redact),
      };
      try {
        return await execute(recording, desired, plan(desired, observed));
      } catch (err) {
        throw redactError(err, redact);
      }
    },
  };
}
