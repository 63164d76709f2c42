import type { ContainerCreateOptions } from "dockerode";
import { Labels, Roles, containerName, meshZone, networkName, serviceLabels } from "@levelrail/spec/naming";
import { type ReleaseSpec, resourcesOf } from "@levelrail/spec/service";
import { hostLimits } from "../../containers/limits";

export interface ContainerPlan {
  shortName: string;
  serviceId: string;
  /** The service's name: the container's name is made from it. */
  service: string;
  appId: string;
  /** The app's name: a bare `<service>` resolves in the app's mesh zone. */
  appName: string;
  environmentId: string;
  releaseId: string;
  /** The image id the release resolved to. */
  imageId: string;
  restartNonce: string;
  spec: ReleaseSpec;
  /** The fully resolved environment (every tier merged). */
  env: Record<string, string>;
  /** Which of `env`'s keys are secrets (a label names them, so its logs are redacted with its own values). */
  secretKeys?: string[];
  /** Nameservers: the mesh DNS on the app network's gateway. */
  dns: string[];
}

/** Pure: what one release's container looks like to Docker. */
export function containerOptions(plan: ContainerPlan): ContainerCreateOptions & { name: string } {
  const network = networkName(plan.shortName, plan.appId);
  return {
    name: containerName(plan.shortName, plan.service, plan),
    Image: plan.imageId,
    Env: Object.entries(plan.env).map(([k, v]) => `${k}=${v}`),
    Labels: {
      ...serviceLabels(plan.shortName, plan, Roles.service),
      "levelrail.image": plan.spec.image,
      ...(plan.secretKeys?.length ? { [Labels.secretKeys]: [...new Set(plan.secretKeys)].sort().join(",") } : {}),
    },
    ExposedPorts: { [`${plan.spec.port}/tcp`]: {} },
    HostConfig: {
      NetworkMode: network,
      Dns: plan.dns,
      // A bare `<service>` is completed to `<service>.<app>.<zone>`, which the mesh DNS answers with the
      // one active container only (no network alias: that would also answer with unready and draining ones).
      DnsSearch: [`${plan.appName}.${meshZone(plan.shortName)}`],
      // Docker's embedded DNS sets ndots:0, which sends a bare name upstream before the search domain
      // (and musl never searches then): ndots:1 asks the mesh first for names without a dot.
      DnsOptions: ["ndots:1"],
      // No restarts while it proves itself: a crash fails the deploy with its exit code.
      // The cutover switches it to `unless-stopped`.
      RestartPolicy: { Name: "no" },
      LogConfig: { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } },
      ...hostLimits("service", resourcesOf(plan.spec.resources)),
    },
    NetworkingConfig: { EndpointsConfig: { [network]: {} } },
  };
}

/** The URL the readiness probe asks, on the container's address in the app network. */
export function probeUrl(address: string, spec: Pick<ReleaseSpec, "port" | "healthPath">): string {
  return `http://${address}:${spec.port}${spec.healthPath}`;
}
