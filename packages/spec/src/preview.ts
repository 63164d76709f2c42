import { z } from "zod";
import { domainName } from "./service";

/**
 * Previews (docs/operating/git-builds-and-previews.md#previews-of-pull-requests): a pull or merge request's environment, its routes and when it goes. Pure
 * rules shared by the webhook, the API, the worker's preview controller and the UI.
 */

/** The preview environment of request `n`. */
export const previewEnvironmentName = (n: number) => `pr-${n}`;

/**
 * The domain each service of a preview routes. Only services that have domains in the base
 * environment route in the preview: the first by name gets `pr-<n>.<domain>`, each other one
 * `<service>-pr-<n>.<domain>` (so every route stays one label under the preview domain).
 */
export function previewRoutes(servicesWithDomains: readonly string[], n: number, domain: string): Map<string, string> {
  const names = [...new Set(servicesWithDomains)].sort();
  return new Map(names.map((name, i) => [name, i === 0 ? `pr-${n}.${domain}` : `${name}-pr-${n}.${domain}`]));
}

/** The preview's address, for the status callback's target URL: plain HTTP under `*.localhost`. */
export function previewUrl(n: number, domain: string): string {
  const host = `pr-${n}.${domain}`;
  return `${host === "localhost" || host.endsWith(".localhost") ? "http" : "https"}://${host}`;
}

/**
 * A repository as previews compare it: host and path in lower case, no scheme, user, password, port
 * or `.git`; `git@host:owner/repo.git` and `https://host/owner/repo` are one repository.
 */
export function normalizeRepo(url: string): string {
  return hostAndPath(url)
    .toLowerCase()
    .replace(/\/+$/, "")
    .replace(/\.git$/, "");
}

/** The repository's path as the provider's API names it (`owner/repo`, a GitLab group path), case kept. */
export function repoPathOf(url: string): string {
  return hostAndPath(url)
    .replace(/\/+$/, "")
    .replace(/\.git$/, "")
    .split("/")
    .slice(1)
    .filter((x) => x.length > 0)
    .join("/");
}

function hostAndPath(url: string): string {
  let u = url.trim();
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/.exec(u);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(u)) u = `${scp[1]}/${scp[2]}`;
  else {
    try {
      const parsed = new URL(u);
      u = `${parsed.hostname}${parsed.pathname}`;
    } catch {
      // not a URL: compared as written
    }
  }
  return u;
}

/** What the sweep knows of one preview. */
export interface SweptPreview {
  number: number;
  state: "open" | "closed" | "refused";
  updatedAt: Date;
}

/**
 * Whether the sweep closes a preview, and why: past its time to live since its last update, or its
 * request is not among the provider's open ones (`open` null: no provider API, or its listing failed,
 * so only the time to live counts; `ttlHours` null: the project's preview settings are gone). Requests
 * are matched by their number, never by a branch.
 */
export function sweepDecision(p: SweptPreview, ttlHours: number | null, now: Date, open: ReadonlySet<number> | null): { close: false } | { close: true; reason: string } {
  if (p.state === "closed") return { close: false };
  // The project's settings are gone (its base environment was deleted): nothing says where previews go.
  if (ttlHours === null) return { close: true, reason: "the project's previews are no longer set up" };
  const age = now.getTime() - p.updatedAt.getTime();
  if (age >= ttlHours * 3_600_000) return { close: true, reason: `no update for ${ttlHours} h (its time to live)` };
  if (open !== null && !open.has(p.number)) return { close: true, reason: `request ${p.number} is no longer open at the provider` };
  return { close: false };
}

/** A project's preview settings, as the API and the form take them. */
export const previewSettingsInput = z
  .object({
    baseEnvironmentId: z.string().uuid("must be an environment id"),
    /** A base domain of the installation (or one under it): request 12 routes `pr-12.<domain>`. */
    domain: domainName,
    max: z.number({ error: "must be a number" }).int("must be a whole number").min(0, "must be 0 or more").max(100, "must be at most 100").default(5),
    ttlHours: z.number({ error: "must be a number" }).int("must be a whole number").min(1, "must be at least 1").max(24 * 90, "must be at most 2160 (90 days)").default(168),
  })
  .strict();
export type PreviewSettingsInput = z.infer<typeof previewSettingsInput>;

/** Why `domain` cannot hold previews, or null: it must be a base domain of the installation or under one (no proof needed, no connection made). */
export function previewDomainProblem(domain: string, baseDomains: readonly string[]): string | null {
  const d = domain.toLowerCase().replace(/\.$/, "");
  if (d === "localhost" || d.endsWith(".localhost")) return null;
  if (baseDomains.some((b) => d === b || d.endsWith(`.${b}`))) return null;
  return baseDomains.length
    ? `${d} is not under a base domain of this installation (${baseDomains.join(", ")}); previews route only there`
    : `this installation has no base domains (LEVELRAIL_BASE_DOMAINS); previews can only use *.localhost`;
}
