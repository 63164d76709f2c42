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
  environment: "levelrail.environment",
  /** What a container is for (`Roles`): set explicitly on every container, so an image's own label never shows through. */
  role: "levelrail.role",
  /** The short name of the installation that owns the object, so two installations can share an engine. */
  instance: "levelrail.instance",
  /** The managed database a container or volume belongs to (its id). */
  database: "levelrail.database",
  /**
   * Which of a container's env keys held secrets when it was created (comma-separated, never a
   * value): its logs are redacted with the values it has, even after a secret is rotated or removed.
   */
  secretKeys: "levelrail.secret-keys",
  /** A built image's commit (40 hex). */
  commit: "levelrail.commit",
  /** A built image's repository URL, without credentials. */
  source: "levelrail.source",
  /** A built image's organization (its id): the only one whose services, databases, hooks and builds may use it. */
  org: "levelrail.org",
} as const;

export const DEFAULT_SHORT_NAME = "levelrail";

/** What a container of a service is for: the value of its `levelrail.role` label. */
export const Roles = { service: "service", preDeploy: "pre-deploy", postDeploy: "post-deploy" } as const;
export type Role = (typeof Roles)[keyof typeof Roles];

/** The inputs of a service container's name: which service, which image, which restart. */
export interface ContainerKey {
  /** The service's id: names repeat across environments, ids never. */
  serviceId: string;
  /** The image id the release resolved to. */
  imageId: string;
  /** The restart nonce; empty for a service never restarted. */
  restartNonce: string;
}

/** Hash of the service's id, the image id and the restart nonce (newline-separated: none of them contains one). */
export function containerHash(k: ContainerKey): string {
  return createHash("sha256").update(`${k.serviceId}\n${k.imageId}\n${k.restartNonce}`).digest("hex").slice(0, 12);
}

/**
 * `<short>-<service>-<hash>`: the same service, image and nonce give the same name; two images never
 * share one; two services named alike (in two environments) never collide.
 */
export function containerName(shortName: string, service: string, k: ContainerKey): string {
  return `${shortName}-${service}-${containerHash(k)}`;
}

const PRE_DEPLOY_SUFFIX = "-pre-deploy";

/** `<service container's name>-pre-deploy`: the one-off container a release's pre-deploy hook runs in. */
export function preDeployName(serviceContainer: string): string {
  return `${serviceContainer}${PRE_DEPLOY_SUFFIX}`;
}

/**
 * Whether an inspected container of a service is a pre-deploy hook's rather than the service's own.
 * Both the label and the name must say so: an earlier version set no role on service containers, so
 * an image's own `levelrail.role` label showed through on those (Docker merges image labels in);
 * a service container's name ends in its hash, never in `-pre-deploy`.
 */
export function isPreDeployContainer(c: { name: string; labels: Record<string, string> }): boolean {
  return c.labels[Labels.role] === Roles.preDeploy && c.name.endsWith(PRE_DEPLOY_SUFFIX);
}

/**
 * The data plane's own containers (`<short>-caddy`, `<short>-mesh-dns-<replica>-<version>`), which
 * `npm start` and `levelrail install` run under the engine's restart policy (scripts/lib/caddy.mjs,
 * dataplane.mjs). They carry the installation's labels but belong to no service: controllers never
 * adopt or remove them, and tools that count a service's containers leave them out.
 */
export const DataPlaneRoles = { ingress: "ingress", meshDns: "mesh-dns" } as const;

/** Whether a container is one of the data plane's own (Caddy, a mesh DNS replica). */
export function isDataPlaneContainer(c: { labels: Record<string, string> }): boolean {
  const role = c.labels[Labels.role];
  return !c.labels[Labels.service] && (role === DataPlaneRoles.ingress || role === DataPlaneRoles.meshDns);
}

/** `<short>-app-<appId>`: the private network every container of an app joins. */
export function networkName(shortName: string, appId: string): string {
  return `${shortName}-app-${appId}`;
}

/** Whose a service's container is: the ids its labels carry. */
export interface ContainerOwner {
  serviceId: string;
  appId: string;
  environmentId: string;
  releaseId: string;
}

/**
 * The labels every container of a service carries, its role included, always explicitly: Docker
 * merges an image's labels into its containers', and ours must win. `levelrail.service` holds the
 * service's id (names repeat across environments).
 */
export function serviceLabels(shortName: string, owner: ContainerOwner, role: Role): Record<string, string> {
  return {
    [Labels.managed]: "true",
    [Labels.instance]: shortName,
    [Labels.service]: owner.serviceId,
    [Labels.app]: owner.appId,
    [Labels.environment]: owner.environmentId,
    [Labels.release]: owner.releaseId,
    [Labels.role]: role,
  };
}

/** The labels every network the product creates carries. */
export function networkLabels(shortName: string, appId: string): Record<string, string> {
  return { [Labels.managed]: "true", [Labels.instance]: shortName, [Labels.app]: appId };
}

/**
 * Whether an inspected object carries every one of `expected` (its owner's labels): whatever is
 * adopted, changed or removed is checked by its labels after inspecting it, never trusted from its name.
 */
export function carriesLabels(actual: Record<string, string>, expected: Record<string, string>): boolean {
  return Object.entries(expected).every(([k, v]) => actual[k] === v);
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

/** What a managed database's containers are for: the server itself, a restore filling a fresh volume, a backup's throwaway restore. */
export const DatabaseRoles = { database: "database", restore: "database-restore", verify: "backup-verify", client: "database-client" } as const;
export type DatabaseRole = (typeof DatabaseRoles)[keyof typeof DatabaseRoles];

/** The inputs of a database container's name: which database, which image, which volume. */
export interface DatabaseContainerKey {
  databaseId: string;
  image: string;
  volume: string;
}

/** `<short>-db-<name>-<hash>`: the hash covers the database's id, image and volume (a restore that replaces the data makes a new container). */
export function databaseContainerName(shortName: string, name: string, k: DatabaseContainerKey): string {
  const hash = createHash("sha256").update(`${k.databaseId}\n${k.image}\n${k.volume}`).digest("hex").slice(0, 12);
  return `${shortName}-db-${name}-${hash}`;
}

/** `<short>-db-<name>-<purpose>-<first 8 of an id>`: a restore's or a verification's one-off container. */
export function databaseHelperName(shortName: string, name: string, purpose: "restore" | "verify" | "client", id: string): string {
  return `${shortName}-db-${name}-${purpose}-${id.slice(0, 8)}`;
}

/** `<short>-db-<databaseId>`: a database's first volume; a restore that replaces the data adds `-<first 8 of the restore's id>`. */
export function databaseVolumeName(shortName: string, databaseId: string, restoreId?: string): string {
  return restoreId ? `${shortName}-db-${databaseId}-${restoreId.slice(0, 8)}` : `${shortName}-db-${databaseId}`;
}

/** The labels of every container and volume of a managed database, its role included (containers only). */
export function databaseLabels(shortName: string, db: { databaseId: string; environmentId: string }, role?: DatabaseRole): Record<string, string> {
  return {
    [Labels.managed]: "true",
    [Labels.instance]: shortName,
    [Labels.database]: db.databaseId,
    [Labels.environment]: db.environmentId,
    ...(role ? { [Labels.role]: role } : {}),
  };
}

/** Docker label filter selecting every container or volume of one database. */
export function databaseFilter(shortName: string, databaseId: string): string[] {
  return [...instanceFilter(shortName), `${Labels.database}=${databaseId}`];
}

/**
 * The registry host of built images: `.invalid` is reserved (RFC 2606) and never resolves, so an
 * engine that lacks a built image never asks any registry for it (a name without a host would read
 * as Docker Hub's `docker.io/<short>/…`, where anyone may publish one).
 */
export const BUILT_IMAGE_HOST = "levelrail.invalid";

/** `levelrail.invalid/<short>/<serviceId>:<commit>`: the image a build of a git-sourced service makes. */
export function builtImageName(shortName: string, serviceId: string, commit: string): string {
  return `${BUILT_IMAGE_HOST}/${shortName}/${serviceId}:${commit}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HUB_HOSTS = new Set(["docker.io", "index.docker.io", "registry-1.docker.io"]);

/**
 * The service whose build `ref` names, when `ref` is in this installation's built-image namespace:
 * `levelrail.invalid/<short>/<serviceId>` (any tag or digest), or the name builds had before,
 * `<short>/<serviceId>` (which the engine also spells `docker.io/<short>/<serviceId>`). Null for
 * any other reference. Such a name is never pulled, and only its service's organization may use it.
 */
export function builtImageServiceId(shortName: string, ref: string): string | null {
  const at = ref.indexOf("@");
  let name = at < 0 ? ref : ref.slice(0, at);
  const colon = name.lastIndexOf(":");
  if (colon > name.lastIndexOf("/")) name = name.slice(0, colon);
  const parts = name.split("/");
  if (parts.length === 3) {
    const host = parts[0]!.toLowerCase();
    if (host !== BUILT_IMAGE_HOST && !HUB_HOSTS.has(host)) return null;
    parts.shift();
  }
  if (parts.length !== 2 || parts[0] !== shortName || !UUID.test(parts[1]!)) return null;
  return parts[1]!;
}

/**
 * A built image's name under the registry host no engine resolves: `ref` itself when it has it, else
 * the name a build before gave it (`<short>/<serviceId>:<commit>`, or Docker Hub's spelling of it)
 * moved under `levelrail.invalid/`. Only for a `ref` in the built-image namespace.
 */
export function unresolvableBuiltName(ref: string): string {
  const slash = ref.indexOf("/");
  const host = ref.slice(0, slash).toLowerCase();
  if (host === BUILT_IMAGE_HOST) return ref;
  return `${BUILT_IMAGE_HOST}/${HUB_HOSTS.has(host) ? ref.slice(slash + 1) : ref}`;
}

/** Whether `ref` names a built image (this installation's namespace, new or old spelling): never pulled. */
export const isBuiltImageName = (shortName: string, ref: string) => builtImageServiceId(shortName, ref) !== null;

/**
 * What the engine answers for a built image that is not there, and for one of another organization's
 * (which must read the same: one organization never learns what another built).
 */
export function noSuchImage(ref: string): string {
  return `image ${ref} does not exist on this host (no such image; an image built here is never pulled: build its service again)`;
}

/**
 * The namespace of a service's BuildKit cache mounts (`RUN --mount=type=cache`): the engine's
 * Dockerfile frontend prefixes every cache mount's id with it (`BUILDKIT_CACHE_MOUNT_NS`), so a
 * build reaches only its own service's caches, never another organization's. No `/` in it: the
 * frontend joins `<namespace>/<id>`, so one namespace can never be a prefix of another.
 */
export function buildCacheNamespace(shortName: string, b: { orgId: string; serviceId: string }): string {
  return `${shortName}-org-${b.orgId}-service-${b.serviceId}`.replaceAll("/", "-");
}

/** The labels of a built image: the installation's, its organization and service, the commit and the source (no credentials). */
export function builtImageLabels(shortName: string, b: { orgId: string; serviceId: string; commit: string; source: string }): Record<string, string> {
  return {
    [Labels.managed]: "true",
    [Labels.instance]: shortName,
    [Labels.org]: b.orgId,
    [Labels.service]: b.serviceId,
    [Labels.commit]: b.commit,
    [Labels.source]: b.source,
  };
}
