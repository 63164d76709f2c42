// The hints under New service's and the hooks form's fields: plain text the environment page's
// server component hands the form as props (so it is not in the page's JavaScript); the service
// page's Settings tab, a chunk of its own, imports them.

export const ARGV_HINT = 'One argument per line, run without a shell (for a shell: sh, -c, then the script). Or a JSON array like ["npm","run","migrate"]. Empty: no hook.';
export const DOMAINS_HINT = "One domain per line, e.g. shop.example.com.";

/** The hints of the hook and domain fields (HookDomainFields). */
export const HOOK_HINTS = {
  preDeploy: ARGV_HINT,
  postDeploy: "Runs inside the new container once it is ready; same format.",
  timeoutSeconds: "Each hook is killed after this long and the deploy aborted.",
  domains: DOMAINS_HINT,
};
export type HookHints = typeof HOOK_HINTS;

/** The hints of New service's own fields (NewServiceForm), and of its hooks and domains. */
export const NEW_SERVICE_HINTS = {
  gitUrl: "A private one needs a git credential: set it on the service's Source card",
  memoryMb: "Empty: no limit. At least 16; swap included.",
  cpus: "CPUs, e.g. 0.5 or 2. Empty: no limit.",
  env: "One KEY=value per line",
  hooks: HOOK_HINTS,
};
export type NewServiceHints = typeof NEW_SERVICE_HINTS;
