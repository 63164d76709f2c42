import { z } from "zod";
import { type SourceView, gitSourceInput } from "./git";
import { nodeLabelKey, nodeLabelValue } from "./nodes";
import { envKey, envMap, resourceName } from "./rules";
import { ADDABLE_CAPABILITIES, DEFAULT_PIDS_LIMIT, DEFAULT_REPLICAS, type DeployStep, MAX_PLACEMENT_LABELS, MAX_REPLICAS, type Phase, type ReleaseKind, type ReleaseOutcome, STRATEGIES, type Strategy } from "./service-lists";

// The lists and defaults the browser needs live in ./service-lists (no zod): re-exported here.
export {
  ADDABLE_CAPABILITIES,
  type Capability,
  DEFAULT_PIDS_LIMIT,
  DEFAULT_REPLICAS,
  DEPLOY_STEPS,
  type DeployStep,
  type LimitRole,
  MAX_PLACEMENT_LABELS,
  MAX_REPLICAS,
  PHASES,
  type Phase,
  RELEASE_KINDS,
  RELEASE_OUTCOMES,
  ROLE_CAPABILITIES,
  type ReleaseKind,
  type ReleaseOutcome,
  STRATEGIES,
  type Strategy,
} from "./service-lists";

/** An image reference as `docker pull` takes it; no whitespace, no shell. */
export const imageRef = z
  .string({ error: "must be a string" })
  .min(1, "is required")
  .max(512, "must be at most 512 characters")
  .regex(
    /^[a-z0-9][a-z0-9._\-/:@]*$/i,
    "must be an image reference like registry.example.com/shop:1.4.2",
  )
  // An image id, or a prefix of one, names whatever the engine has cached, whoever pulled it (another
  // organization, with its own registry login): a service or a database names an image by repository,
  // so access can be checked.
  .refine((ref) => !isBareImageId(ref), "must name a repository, not an image id or a prefix of one (sha256:…, or hex digits alone)");

/**
 * `sha256:<hex>`, or hex digits alone (any length): what the engine resolves as an image id or an id
 * prefix, from its cache, without any registry. A name not in its reference store is searched as an
 * id prefix (`abc123` runs the image whose id starts so), so a repository of hex digits alone with
 * no tag is refused too; with a tag (`abc123:1`) it is a name.
 */
export function isBareImageId(ref: string): boolean {
  return /^sha256:/i.test(ref) || /^[a-f0-9]+$/i.test(ref);
}

const argv = z.array(z.string().min(1).refine((s) => !s.includes("\0"), "must not contain NUL")).min(1);

export const hooksSpec = z
  .object({
    preDeploy: argv.nullable().default(null),
    postDeploy: argv.nullable().default(null),
    timeoutSeconds: z.number().int().min(1).max(3600).default(300),
  })
  .strict();
export type Hooks = z.infer<typeof hooksSpec>;


/**
 * What one container of the service may use. `memoryMb`/`cpus` null: no limit (the default, so
 * existing services keep running as they did); `pids` always has one.
 */
export const resourcesSpec = z
  .object({
    memoryMb: z.number({ error: "must be a number of MiB" }).int("must be a whole number of MiB").min(16, "must be at least 16 MiB").max(1_048_576, "must be at most 1 TiB").nullable().default(null),
    cpus: z.number({ error: "must be a number of CPUs" }).min(0.01, "must be at least 0.01").max(1024, "must be at most 1024").nullable().default(null),
    pids: z.number({ error: "must be a number" }).int("must be a whole number").min(16, "must be at least 16").max(1_000_000, "must be at most 1000000").default(DEFAULT_PIDS_LIMIT),
    capAdd: z
      .array(z.enum(ADDABLE_CAPABILITIES, { error: `must be one of ${ADDABLE_CAPABILITIES.join(", ")}` }))
      .max(ADDABLE_CAPABILITIES.length)
      .refine((cs) => new Set(cs).size === cs.length, "must not list a capability twice")
      .default([]),
  })
  .strict();
export type Resources = z.infer<typeof resourcesSpec>;
export const DEFAULT_RESOURCES: Resources = { memoryMb: null, cpus: null, pids: DEFAULT_PIDS_LIMIT, capAdd: [] };

/** A stored (possibly partial, possibly absent: older rows) resources value with every default filled in. */
export function resourcesOf(stored: Partial<Resources> | undefined | null): Resources {
  return { ...DEFAULT_RESOURCES, ...stored };
}

/** Whether `r` is every default: such a spec leaves `resources` out of a release, so older releases' fingerprints stay equal. */
export function isDefaultResources(r: Resources): boolean {
  return r.memoryMb === null && r.cpus === null && r.pids === DEFAULT_PIDS_LIMIT && r.capAdd.length === 0;
}

/**
 * How many tasks of each release a swarm runs (docs/operating/services-and-deploys.md#replicas-and-placement). One engine runs one container, so
 * there only the default may be asked (the service verbs answer 409 otherwise).
 */
export const replicasSpec = z
  .number({ error: "must be a whole number of replicas" })
  .int("must be a whole number of replicas")
  .min(1, `must be 1-${MAX_REPLICAS}`)
  .max(MAX_REPLICAS, `must be 1-${MAX_REPLICAS}`);

/**
 * The node labels a service's tasks require (`node.labels.<key>==<value>` each): keys and values as
 * an operator may set them on a node (never the product's own `levelrail.*`). `{}`: any node.
 */
export const placementSpec = z
  .record(nodeLabelKey, nodeLabelValue, { error: "must be an object of node label → value" })
  .refine((p) => Object.keys(p).length <= MAX_PLACEMENT_LABELS, `must have at most ${MAX_PLACEMENT_LABELS} labels`);
export type Placement = z.infer<typeof placementSpec>;

/** A spec's replicas, absent (older releases, defaults left out) read as the default. */
export function replicasOf(spec: { replicas?: number | undefined }): number {
  return spec.replicas ?? DEFAULT_REPLICAS;
}

/** A spec's placement, absent read as none (any node). */
export function placementOf(spec: { placement?: Placement | undefined }): Placement {
  return spec.placement ?? {};
}

/** Whether a service asks for what only a swarm can do: more than one replica, or a placement. */
export function needsSwarm(spec: { replicas?: number | undefined; placement?: Placement | undefined }): "replicas" | "placement" | null {
  if (replicasOf(spec) > DEFAULT_REPLICAS) return "replicas";
  if (Object.keys(placementOf(spec)).length > 0) return "placement";
  return null;
}

/** Why a well-formed name may still not route to a service (docs/operating/domains-and-ingress.md), or null when it may. */
export function reservedDomain(domain: string): string | null {
  const d = domain.toLowerCase().replace(/\.$/, "");
  if (d === "localhost") return "localhost is the operator's own machine; use a subdomain like shop.localhost";
  if (/^\d+(\.\d+){3}$/.test(d) || /^\d+$/.test(d)) return "an IP address is not a domain; point a domain name at this host";
  if (d === "internal" || d.endsWith(".internal")) return "names under .internal are the mesh's own; pick a public domain";
  return null;
}

export const domainName = z
  .string()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, "must be a domain name like shop.example.com")
  .superRefine((d, c) => {
    const why = reservedDomain(d);
    if (why) c.addIssue({ code: "custom", message: `${d}: ${why}` });
  });

export const healthPath = z
  .string()
  .max(1024)
  .regex(/^\/[^\s]*$/, "must start with '/' and contain no spaces");

/** Env key → the managed database whose URL it receives. */
const databaseEnv = z.record(envKey, z.object({ from: resourceName }).strict());

/** A service's domains: each at most once. */
const domainList = z
  .array(domainName)
  .max(50)
  .refine((ds) => new Set(ds).size === ds.length, "must not list a domain twice");

/**
 * Where a service's image comes from (docs/operating/services-and-deploys.md): `{"image": "…"}` (what `image` says) or
 * `{"git": {url, ref, …}}`, built by the worker. Exactly one of the two.
 */
export const serviceSource = z
  .object({ image: imageRef.optional(), git: gitSourceInput.optional() })
  .strict()
  .superRefine((s, c) => {
    if ((s.image === undefined) === (s.git === undefined)) c.addIssue({ code: "custom", message: 'must be {"image": "…"} or {"git": {"url": "…", …}}, one of the two' });
  });
export type ServiceSource = z.infer<typeof serviceSource>;

/** Fields an operator edits; shared by create, patch, the form and the API. */
const serviceFields = {
  image: imageRef,
  port: z.number({ error: "must be a number" }).int("must be a whole number").min(1, "must be 1-65535").max(65535, "must be 1-65535"),
  healthPath: healthPath.default("/"),
  readyBudgetSeconds: z.number().int().min(1).max(3600).default(60),
  strategy: z.enum(STRATEGIES, { error: "must be blue-green or recreate" }).default("blue-green"),
  env: envMap.default({}),
  databaseEnv: databaseEnv.default({}),
  storageTargetId: z.string().uuid().nullable().default(null),
  registryCredentialId: z.string().uuid().nullable().default(null),
  hooks: hooksSpec.default({ preDeploy: null, postDeploy: null, timeoutSeconds: 300 }),
  domains: domainList.default([]),
  resources: resourcesSpec.default(DEFAULT_RESOURCES),
  replicas: replicasSpec.default(DEFAULT_REPLICAS),
  placement: placementSpec.default({}),
};

export const serviceCreate = z
  .object({
    name: resourceName,
    app: resourceName,
    environmentId: z.string().uuid("must be an environment id").optional(),
    ...serviceFields,
    // One of `image` and `source` (the verb says which is missing): a git-sourced service has no image until it is built.
    image: imageRef.optional(),
    source: serviceSource.optional(),
  })
  .strict();
export type ServiceCreate = z.infer<typeof serviceCreate>;

export const servicePatch = z
  .object({
    image: serviceFields.image.optional(),
    port: serviceFields.port.optional(),
    healthPath: healthPath.optional(),
    readyBudgetSeconds: z.number().int().min(1).max(3600).optional(),
    strategy: z.enum(STRATEGIES).optional(),
    env: envMap.optional(),
    // Not serviceFields.databaseEnv: its default would make every patch clear the attachments.
    databaseEnv: databaseEnv.optional(),
    storageTargetId: z.string().uuid().nullable().optional(),
    registryCredentialId: z.string().uuid().nullable().optional(),
    hooks: hooksSpec.optional(),
    domains: domainList.optional(),
    resources: resourcesSpec.optional(),
    replicas: replicasSpec.optional(),
    /** Replaces the placement whole (`{}`: any node). */
    placement: placementSpec.optional(),
    /** Replaces the source whole; `{"image": …}` on a git-sourced service switches it back (its git source is deleted). */
    source: serviceSource.optional(),
  })
  .strict();
export type ServicePatch = z.infer<typeof servicePatch>;

/** What one release runs: a snapshot of the service spec taken at Deploy time. */
export const releaseSpec = z.object({
  image: imageRef,
  port: serviceFields.port,
  healthPath,
  readyBudgetSeconds: z.number().int(),
  strategy: z.enum(STRATEGIES),
  env: envMap,
  hooks: hooksSpec,
  /** Absent in releases made before limits existed: read as `DEFAULT_RESOURCES`. */
  resources: resourcesSpec.optional(),
  /** Absent when 1 (and in releases made before replicas existed): read with `replicasOf`. */
  replicas: replicasSpec.optional(),
  /** Absent when `{}` (and in older releases): read with `placementOf`. */
  placement: placementSpec.optional(),
});
export type ReleaseSpec = z.infer<typeof releaseSpec>;

export const deployInput = z.object({ image: imageRef.optional() }).strict();

export const promoteInput = z.object({ to: z.string({ error: "is required" }).uuid("must be an environment id") }).strict();

/** Where a promoted release came from: the environment and the release whose exact image id it runs. */
export interface PromotedFrom {
  environmentId: string;
  environment: string;
  releaseId: string;
}

/** The JSON shape of a service in API responses. */
export interface ServiceView {
  id: string;
  name: string;
  app: string;
  environmentId: string;
  /** The image a Deploy runs: for a git-sourced service the last one built ("" until the first build). */
  image: string;
  source: SourceView;
  port: number;
  healthPath: string;
  readyBudgetSeconds: number;
  strategy: Strategy;
  env: Record<string, string>;
  databaseEnv: Record<string, { from: string }>;
  storageTargetId: string | null;
  registryCredentialId: string | null;
  hooks: Hooks;
  domains: string[];
  resources: Resources;
  /** How many tasks of each release run (on a swarm; one engine runs 1). */
  replicas: number;
  /** Node labels the service's tasks require (on a swarm; `{}` on one engine). */
  placement: Placement;
  createdAt: string;
  updatedAt: string;
}

/** One running copy of a service and where it runs: on a swarm a task of its active release (docs/operating/nodes-and-swarm.md#where-a-service-runs-a-service-runs). */
export interface ReplicaView {
  /** The swarm's task id (on one engine, the container's name). */
  name: string;
  /** The node it runs on, as the Nodes page names it (hostname, with its address where hostnames repeat). */
  node: string;
  /** Its address on the app's network. */
  address: string;
}

export interface StatusView {
  phase: Phase;
  /** The step of a deploy in progress, null when idle. */
  step: DeployStep | null;
  /** The image of the release the worker works on (while a deploy runs, the one it is going to). */
  image: string | null;
  /** The image the active container runs: what serves now (null when nothing does). */
  servingImage: string | null;
  /** While a deploy is pending or running: the image it is going to; null otherwise. */
  targetImage: string | null;
  activeContainer: string | null;
  lastDeploy: ReleaseView | null;
  message: string;
  updatedAt: string | null;
  /** The service's domains and whether Caddy routes them now; null without domains. */
  ingress: { domains: string[]; live: boolean; message: string } | null;
  /** The live container keeps exiting; the engine restarts it (its restart policy), no new deploy is made. */
  crashLooping: boolean;
  /** How often the engine restarted the live container. */
  restarts: number;
  /** How the live container's last run ended (`at`: ISO time), null when it never exited. */
  lastExit: { code: number | null; at: string | null } | null;
  /** While it crash-loops: the last lines it printed before dying (secrets redacted), from the loop's start; null otherwise. */
  lastLines: string[] | null;
  /** On a swarm: the active release's tasks and the nodes they run on; `[]` on one engine (the active container is the one copy). */
  replicas: ReplicaView[];
}

export interface ReleaseView {
  id: string;
  kind: ReleaseKind;
  image: string;
  imageId: string | null;
  createdBy: string;
  createdAt: string;
  finishedAt: string | null;
  outcome: ReleaseOutcome;
  message: string;
  durationMs: number | null;
  /** Set on a promotion: "promoted from staging". */
  promotedFrom: PromotedFrom | null;
}
