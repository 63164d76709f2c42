import { createHash } from "node:crypto";

/**
 * The one place Docker object names and label keys are made. Every controller,
 * test and tool imports these instead of rebuilding a name.
 */
export const LABEL_PREFIX = "levelrail.";
export const Labels = {
  managed: "levelrail.managed",
  service: "levelrail.service",
  app: "levelrail.app",
  release: "levelrail.release",
  /** What a container is for when it is not the service itself: `pre-deploy` for a hook container. */
  role: "levelrail.role",
  /** The short name of the installation that owns the object, so two installations can share an engine. */
  instance: "levelrail.instance",
} as const;

export const DEFAULT_SHORT_NAME = "levelrail";

/** Hash of the image and restart nonce; an empty nonce hashes the image alone. */
export function containerHash(image: string, restartNonce: string): string {
  const input = restartNonce === "" ? image : `${image}\n${restartNonce}`;
  return createHash("sha256").update(input).digest("hex").slice(0, 12);
}

/** `<short>-<service>-<hash>`: same image and nonce give the same name; two images never share one. */
export function containerName(
  shortName: string,
  service: string,
  image: string,
  restartNonce: string,
): string {
  return `${shortName}-${service}-${containerHash(image, restartNonce)}`;
}

/** `<short>-app-<appId>`: the private network every container of an app joins. */
export function networkName(shortName: string, appId: string): string {
  return `${shortName}-app-${appId}`;
}

/** The labels every container of a service carries; `levelrail.service` holds the service's id (names repeat across environments). */
export function serviceLabels(shortName: string, serviceId: string, appId: string, releaseId: string): Record<string, string> {
  return {
    [Labels.managed]: "true",
    [Labels.instance]: shortName,
    [Labels.service]: serviceId,
    [Labels.app]: appId,
    [Labels.release]: releaseId,
  };
}

/** The labels every network the product creates carries. */
export function networkLabels(shortName: string, appId: string): Record<string, string> {
  return { [Labels.managed]: "true", [Labels.instance]: shortName, [Labels.app]: appId };
}

/** Docker label filter selecting everything one installation created. */
export function instanceFilter(shortName: string): string[] {
  return [`${Labels.managed}=true`, `${Labels.instance}=${shortName}`];
}

/** Docker label filter selecting every container of one service, by its id. */
export function serviceFilter(shortName: string, serviceId: string): string[] {
  return [...instanceFilter(shortName), `${Labels.service}=${serviceId}`];
}

/** The DNS zone the mesh DNS server answers for. */
export function meshZone(shortName: string): string {
  return `${shortName}.internal`;
}

/** `<service>.<app>.<short>.internal`: resolves to the service's active container only. */
export function meshName(shortName: string, app: string, service: string): string {
  return `${service}.${app}.${meshZone(shortName)}`;
}
