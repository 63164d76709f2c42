/**
 * The service lists and defaults a page needs in the browser (phases, deploy steps, strategies,
 * capabilities), with no zod: a client component importing them does not pull zod into its page's
 * bundle. ./service re-exports every one of them.
 */
export const STRATEGIES = ["blue-green", "recreate"] as const;
export type Strategy = (typeof STRATEGIES)[number];

/**
 * A service's replicas (how many tasks of each release a swarm runs) and placement (node labels its
 * tasks require): one engine runs exactly one container, so only the defaults run there.
 */
export const DEFAULT_REPLICAS = 1;
export const MAX_REPLICAS = 100;
export const MAX_PLACEMENT_LABELS = 10;

export const PHASES = ["pending", "deploying", "running", "failed", "stopped"] as const;
export type Phase = (typeof PHASES)[number];

export const DEPLOY_STEPS = ["pulling", "pre-deploy", "starting", "probing", "post-deploy", "cutover"] as const;
export type DeployStep = (typeof DEPLOY_STEPS)[number];

export const RELEASE_OUTCOMES = ["pending", "deploying", "succeeded", "failed", "superseded"] as const;
export type ReleaseOutcome = (typeof RELEASE_OUTCOMES)[number];

export const RELEASE_KINDS = ["deploy", "restart", "rollback", "promote"] as const;
export type ReleaseKind = (typeof RELEASE_KINDS)[number];

/**
 * Capabilities a service may add back (`capAdd`): Docker's own default set, nothing beyond it. A
 * capability outside it (SYS_ADMIN, NET_ADMIN, SYS_PTRACE, …) weakens the wall between tenants.
 */
export const ADDABLE_CAPABILITIES = [
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "NET_RAW",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
] as const;
export type Capability = (typeof ADDABLE_CAPABILITIES)[number];

/** What a container is for, as far as its privileges go. */
export type LimitRole = "service" | "pre-deploy" | "database";

/**
 * The capabilities each role keeps after dropping all of Docker's default set (a spec's `capAdd`
 * adds to these). A service or its hook keeps what an image needs to start as root and step down to
 * its own user (nginx, redis and most official images do): no raw sockets, device nodes, chroot or
 * file-capability games. Binding a port below 1024 needs nothing (the engine sets
 * `ip_unprivileged_port_start=0` in every container). A database also owns and reads its data
 * directory whoever made the files.
 */
export const ROLE_CAPABILITIES: Record<LimitRole, readonly Capability[]> = {
  service: ["CHOWN", "SETGID", "SETUID"],
  "pre-deploy": ["CHOWN", "SETGID", "SETUID"],
  database: ["CHOWN", "DAC_OVERRIDE", "FOWNER", "SETGID", "SETUID"],
};

/** The process limit of a service that sets none: high enough for JVMs and worker pools, low enough to stop a fork bomb. */
export const DEFAULT_PIDS_LIMIT = 4096;
