import type { EnvStores } from "@levelrail/spec/env";
import { isServiceId, parseKey } from "@levelrail/spec/keys";
import { redactError, redactor } from "@levelrail/spec/redact";
import { type Controller, type ReconcileResult } from "../../reconcile/controller";
import { TerminalError } from "../../reconcile/errors";
import { environment, registryPassword } from "../application/observe";
import type { RegistryStore, ServiceStore } from "../application/ports";
import { changedStatusOnly, redactingHooks, redactingStatus } from "../application/redacting";
import { swarmInput } from "./desired";
import { type SwarmReleaseDeps, type SwarmReleaseInput, reconcileSwarmRelease } from "./reconcile";

// The release controller on a swarm as the worker's queue runs it: a service key's pass reads the
// stored service (the same snapshot the application controller reads), resolves its environment
// and registry login, and runs one observe → plan → execute of its releases as swarm services.

export interface SwarmReleaseControllerOptions {
  deps: SwarmReleaseDeps;
  store: ServiceStore;
  envStores: EnvStores;
  registry: RegistryStore | undefined;
}

export function swarmReleaseController(o: SwarmReleaseControllerOptions): Controller {
  return {
    name: "swarm-release",
    async reconcile(text): Promise<ReconcileResult | void> {
      const key = parseKey(text);
      if (key?.kind !== "service" || !isServiceId(key.id)) throw new TerminalError(`not a service key: ${JSON.stringify(text)}`);
      const service = await o.store.getDesiredService(key.id);
      const rel = service?.release ?? null;
      let resolved: { env: Record<string, string>; secretKeys: string[] } = { env: {}, secretKeys: [] };
      let secrets: string[] = [];
      let problem: string | null = null;
      // Resolved for every release that may need its service made (again, when one was removed by hand).
      if (service && rel && rel.outcome !== "failed" && rel.outcome !== "superseded") {
        const { env, secrets: values } = await environment(o.envStores, service.envTarget, rel.spec.env);
        secrets = [...values, ...(await registryPassword(o.registry, service))];
        if (env.ok) resolved = { env: env.env, secretKeys: env.secretKeys ?? [] };
        else problem = env.problem;
      }
      const redact = redactor(secrets);
      // Only a status that differs from the stored one is written, with the service's secrets redacted.
      const status = redactingStatus(changedStatusOnly(o.deps.status, service?.storedStatus), redact);
      if (service && rel && problem !== null) {
        // The environment cannot be resolved (a secret or database gone): the release fails as on one engine.
        if (rel.outcome === "pending" || rel.outcome === "deploying") {
          await status.updateRelease(rel.id, { outcome: "failed", message: problem });
          return { requeueAfterMs: 0 }; // the next pass holds it and says so in the status
        }
        return;
      }
      const auth = service?.registryCredentialId && o.registry ? await o.registry.registryAuth(service.orgId, service.registryCredentialId) : null;
      const input: SwarmReleaseInput = swarmInput(
        o.deps.shortName,
        key.id,
        service && {
          id: service.id,
          name: service.name,
          appId: service.appId,
          appName: service.appName,
          environmentId: service.environmentId,
          release: rel && { id: rel.id, restartNonce: rel.restartNonce, outcome: rel.outcome, finishedAt: rel.finishedAt, spec: rel.spec },
        },
        resolved,
        auth,
      );
      if (service) input.orgId = service.orgId;
      try {
        // A hook's output is stored with the service's secrets redacted, as on one engine.
        const hooks = o.deps.hooks && redactingHooks(o.deps.hooks, redact);
        const { requeueAfterMs } = await reconcileSwarmRelease({ ...o.deps, status, ...(hooks ? { hooks } : {}) }, input);
        return requeueAfterMs === null ? undefined : { requeueAfterMs };
      } catch (err) {
        throw redactError(err, redact);
      }
    },
  };
}
