import type { GitProvider } from "@levelrail/db/schema/git";
import { pinnedRequest } from "../net/pinned-request";
import { type TargetPolicy, bareHost, resolveTarget } from "../notifications/address";

/**
 * A git provider's API, for what previews need of it: the numbers of a repository's open requests
 * (the sweep) and a commit status (the outcome of a preview). GitHub and Gitea speak alike; GitLab
 * has its own paths and states. Every call goes through the installation's address policy.
 */
export interface ProviderApi {
  provider: GitProvider;
  /** The API's base URL, without a trailing slash. */
  url: string;
  /** A token, or null for none. */
  token: string | null;
}

export type PreviewOutcome = "pending" | "success" | "failure";

/** The page of open requests: GitHub `pulls?state=open`, Gitea `pulls?state=open`, GitLab `merge_requests?state=opened`. */
export function openRequestsUrl(api: Pick<ProviderApi, "provider" | "url">, repoPath: string, page: number, perPage: number): string {
  const base = api.url.replace(/\/+$/, "");
  if (api.provider === "gitlab") return `${base}/projects/${encodeURIComponent(repoPath)}/merge_requests?state=opened&per_page=${perPage}&page=${page}`;
  const q = api.provider === "gitea" ? `state=open&limit=${perPage}&page=${page}` : `state=open&per_page=${perPage}&page=${page}`;
  return `${base}/repos/${repoPath}/pulls?${q}`;
}

/** Where a commit's status goes through the API (for a provider whose event named none). */
export function statusUrlOf(api: Pick<ProviderApi, "provider" | "url">, repoPath: string, commit: string): string {
  const base = api.url.replace(/\/+$/, "");
  if (api.provider === "gitlab") return `${base}/projects/${encodeURIComponent(repoPath)}/statuses/${commit}`;
  return `${base}/repos/${repoPath}/statuses/${commit}`;
}

/** A status URL of GitLab's shape (`/projects/<id>/statuses/<sha>`): its state goes in the query, in GitLab's words. */
const isGitLabStatus = (url: string) => /\/projects\/[^/]+\/statuses\/[0-9a-f]+$/.test(new URL(url).pathname);

/** The request for a status: GitHub and Gitea take JSON `{state, target_url, description, context}`; GitLab query parameters. */
export function statusRequest(url: string, outcome: PreviewOutcome, targetUrl: string, description: string): { url: string; body: Record<string, string> | null } {
  if (isGitLabStatus(url)) {
    const state = outcome === "failure" ? "failed" : outcome;
    const q = new URLSearchParams({ state, target_url: targetUrl, description, name: "levelrail/preview" });
    return { url: `${url}?${q.toString()}`, body: null };
  }
  return { url, body: { state: outcome, target_url: targetUrl, description, context: "levelrail/preview" } };
}

function authHeaders(api: ProviderApi | null): Record<string, string> {
  if (!api?.token) return {};
  return api.provider === "gitlab" ? { "private-token": api.token } : { authorization: `token ${api.token}` };
}

export interface CallOptions {
  policy: TargetPolicy;
  timeoutMs: number;
}

/**
 * Numbers of every open request of `repoPath` (at most 20 pages of 50); throws when the API does not
 * answer them, and when there are more: a list cut short would look like requests closed, and the
 * sweep closes previews of requests missing from it.
 */
export async function listOpenRequests(api: ProviderApi, repoPath: string, o: CallOptions): Promise<Set<number>> {
  const open = new Set<number>();
  const perPage = 50;
  const pages = 20;
  for (let page = 1; page <= pages; page++) {
    const res = await call("GET", openRequestsUrl(api, repoPath, page, perPage), authHeaders(api), null, o);
    if (res.status !== 200) throw new Error(`${new URL(api.url).host} answered ${res.status} listing the open requests of ${repoPath}`);
    const items: unknown = JSON.parse(res.text);
    if (!Array.isArray(items)) throw new Error(`${new URL(api.url).host} answered no list of requests`);
    for (const it of items) {
      const n = (it as Record<string, unknown>)[api.provider === "gitlab" ? "iid" : "number"];
      if (typeof n === "number") open.add(n);
    }
    if (items.length < perPage) return open;
  }
  throw new Error(`${new URL(api.url).host} lists more than ${pages * perPage} open requests of ${repoPath}; the list is incomplete, so none is taken as closed`);
}

/**
 * Whether a status URL is on the provider API itself (same scheme, host and port, under its path): the
 * only place a status, and the token with it, is sent.
 */
export function onProviderApi(statusUrl: string, api: Pick<ProviderApi, "url">): boolean {
  try {
    const u = new URL(statusUrl);
    const a = new URL(api.url);
    const base = a.pathname.replace(/\/+$/, "");
    return u.origin === a.origin && u.pathname.startsWith(`${base}/`) && u.username === "" && u.password === "";
  } catch {
    return false;
  }
}

/**
 * POSTs a preview's outcome to its status URL; throws naming the host and status when it is not taken.
 * A status URL that is not on the source's provider API (or with no API configured) is refused before
 * any connection (a final refusal: not retried).
 */
export async function postStatus(statusUrl: string, api: ProviderApi | null, outcome: PreviewOutcome, targetUrl: string, description: string, o: CallOptions): Promise<void> {
  if (!api || !onProviderApi(statusUrl, api)) throw new StatusRefused(`the status URL is not on the source's provider API${api ? ` (${new URL(api.url).host})` : " (none configured)"}; not posted`, 400);
  const r = statusRequest(statusUrl, outcome, targetUrl, description);
  const res = await call("POST", r.url, authHeaders(api), r.body, o);
  if (res.status < 200 || res.status >= 300) throw new StatusRefused(`${new URL(statusUrl).host} answered ${res.status} to the preview's status`, res.status);
}

/** The status endpoint answered, refusing: a 4xx (a missing or wrong token) is not retried; a 5xx or 429 is. */
export class StatusRefused extends Error {
  override name = "StatusRefused";
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
  get final(): boolean {
    return this.status >= 400 && this.status < 500 && this.status !== 429;
  }
}

const MAX_ANSWER = 4 * 1024 * 1024;

/** One HTTP call to the checked address (never following a redirect), its answer capped. Never logs the URL's query or the token. */
async function call(method: "GET" | "POST", href: string, headers: Record<string, string>, body: Record<string, string> | null, o: CallOptions): Promise<{ status: number; text: string }> {
  const url = new URL(href);
  const host = bareHost(url.hostname);
  const payload = body ? Buffer.from(JSON.stringify(body)) : null;
  const target = await resolveTarget(host, o.policy);
  const all = { accept: "application/json", "user-agent": "Levelrail-Previews", ...(payload ? { "content-type": "application/json" } : {}), ...headers };
  return pinnedRequest(url, host, target, { method, headers: all, body: payload, timeoutMs: o.timeoutMs, maxAnswer: MAX_ANSWER });
}
