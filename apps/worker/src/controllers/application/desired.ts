import type { ContainerCreateOptions } from "dockerode";
import { containerName, networkName, serviceLabels } from "@levelrail/spec/naming";
import type { ReleaseSpec } from "@levelrail/spec/service";

export interface ContainerPlan {
  shortName: string;
  service: string;
  appId: string;
  releaseId: string;
  /** The image id the release resolved to. */
  imageId: string;
  restartNonce: string;
  spec: ReleaseSpec;
  /** The fully resolved environment (every tier merged). */
  env: Record<string, string>;
  /** Nameservers: the mesh DNS on the app network's gateway. */
  dns: string[];
}

/** Pure: what one release's container looks like to Docker. */
export function containerOptions(plan: ContainerPlan): ContainerCreateOptions & { name: string } {
  const network = networkName(plan.shortName, plan.appId);
  return {
    name: containerName(plan.shortName, plan.service, plan.imageId, plan.restartNonce),
    Image: plan.imageId,
    Env: Object.entries(plan.env).map(([k, v]) => `${k}=${v}`),
    Labels: { ...serviceLabels(plan.shortName, plan.service, plan.appId, plan.releaseId), "levelrail.image": plan.spec.image },
    ExposedPorts: { [`${plan.spec.port}/tcp`]: {} },
    HostConfig: {
      NetworkMode: network,
      Dns: plan.dns,
      // No restarts while it proves itself: a crash fails the deploy with its exit code.
      // The cutover switches it to `unless-stopped`.
      RestartPolicy: { Name: "no" },
      LogConfig: { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } },
    },
    NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: [plan.service] } } },
  };
}

/** The URL the readiness probe asks, on the container's address in the app network. */
export function probeUrl(address: string, spec: Pick<ReleaseSpec, "port" | "healthPath">): string {
  return `http://${address}:${spec.port}${spec.healthPath}`;
}
