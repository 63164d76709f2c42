import { createHash } from "node:crypto";

/**
 * Docker objects exactly as the version before service-id naming made them, for upgrade tests: the
 * name hashed the image id and restart nonce only, and a service container carried neither
 * `levelrail.environment` nor `levelrail.role` (a pre-deploy hook's carried `levelrail.role=pre-deploy`).
 * Written out literally: a frozen copy of that version's format, not the current naming module.
 */
export function legacyContainerName(shortName: string, service: string, imageId: string, restartNonce: string): string {
  const input = restartNonce === "" ? imageId : `${imageId}\n${restartNonce}`;
  return `${shortName}-${service}-${createHash("sha256").update(input).digest("hex").slice(0, 12)}`;
}

/** The labels that version put on a service's container. */
export function legacyServiceLabels(shortName: string, serviceId: string, appId: string, releaseId: string): Record<string, string> {
  return { "levelrail.managed": "true", "levelrail.instance": shortName, "levelrail.service": serviceId, "levelrail.app": appId, "levelrail.release": releaseId };
}

/** The labels that version put on a pre-deploy hook's container. */
export function legacyPreDeployLabels(shortName: string, serviceId: string, appId: string, releaseId: string): Record<string, string> {
  return { ...legacyServiceLabels(shortName, serviceId, appId, releaseId), "levelrail.role": "pre-deploy" };
}
