import type { GitProvider } from "@levelrail/db/schema/git";

/** What a pull or merge request event asks of its preview: open (or reopen), a new head commit, closed (or merged), or nothing. */
export type PrAction = "opened" | "synchronize" | "closed" | "ignored";

/** A provider's event in the product's words; providers differ only in how they spell it. */
export type HookEvent =
  | { kind: "ping" }
  | {
      kind: "push";
      ref: string;
      commit: string;
      deleted: boolean;
      /** The commit the ref pointed to before the push (the forge's `before`; all zeros for a new ref, "" when not sent). */
      before: string;
    }
  | {
      kind: "pr";
      action: PrAction;
      providerAction: string;
      number: number;
      headRef: string;
      headCommit: string;
      baseRef: string;
      /** Where the outcome goes, when the payload names it (GitHub's `pull_request.statuses_url`, Gitea's when present). */
      statusUrl?: string;
      /** The repository as the provider's API names it (`owner/repo`, GitLab's `path_with_namespace`). */
      repoPath: string;
      /**
       * The head is in another repository than the base (a fork): GitHub and Gitea `pull_request.head.repo`
       * against `repository`, GitLab `source_project_id` against `target_project_id`. A payload that does
       * not say is a fork.
       */
      fork: boolean;
      /**
       * The forge does not mark the author as one of the repository's own: GitHub's `author_association`
       * is not OWNER, MEMBER or COLLABORATOR (or missing). GitLab says nothing of the kind, so there a
       * fork's author is an outsider; on Gitea every request's is (an AGit request is no fork).
       */
      outsider: boolean;
      /** The head repository's name as the payload gives it (for the message), "" when it names none. */
      headRepo: string;
      /**
       * When the forge last changed the request, as the payload says (`pull_request.updated_at`, GitLab's
       * `object_attributes.updated_at`); null when it does not. A delivery older than the last one taken is replayed.
       */
      at: Date | null;
    }
  | { kind: "other"; event: string };

const ZERO = /^0+$/;
const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const int = (v: unknown): number => (typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : 0);

/** A payload that is not what its event header says: a 400 naming what is missing. */
export class PayloadError extends Error {
  override name = "PayloadError";
}

/**
 * The body as JSON: `application/json`, or GitHub's `application/x-www-form-urlencoded` (`payload=<json>`).
 * Throws a PayloadError for anything else.
 */
export function payloadOf(body: Uint8Array, contentType: string | null): Obj {
  let text = Buffer.from(body).toString("utf8");
  if ((contentType ?? "").startsWith("application/x-www-form-urlencoded")) text = new URLSearchParams(text).get("payload") ?? "";
  try {
    const v: unknown = JSON.parse(text);
    if (v === null || typeof v !== "object" || Array.isArray(v)) throw new PayloadError("the body is not a JSON object");
    return v as Obj;
  } catch (err) {
    if (err instanceof PayloadError) throw err;
    throw new PayloadError("the body is not JSON (send application/json)");
  }
}

function push(ref: string, after: string, deletedFlag: boolean, before: string): HookEvent {
  if (!ref) throw new PayloadError("a push without a ref");
  const deleted = deletedFlag || ZERO.test(after);
  if (!deleted && !SHA.test(after)) throw new PayloadError("a push without its commit (after)");
  return { kind: "push", ref, commit: deleted ? "" : after, deleted, before: SHA.test(before) || ZERO.test(before) ? before : "" };
}

/** The members' own associations on GitHub; anything else (CONTRIBUTOR, FIRST_TIMER, NONE, missing) is an outsider. */
const MEMBER_ASSOCIATIONS = new Set(["OWNER", "MEMBER", "COLLABORATOR"]);

/** Whether two repositories of a payload are one: by id when both have one, else by full name; a missing one is not the same. */
function sameRepository(head: Obj, base: Obj, headId: unknown = head.id): boolean {
  const a = typeof headId === "number" && headId > 0 ? headId : null;
  const b = int(base.id) || null;
  if (a !== null && b !== null) return a === b;
  const x = str(head.full_name).toLowerCase();
  return x !== "" && x === str(base.full_name).toLowerCase();
}

type PrFields = { action: PrAction; providerAction: string; number: number; headRef: string; headCommit: string; baseRef: string; statusUrl: string; repoPath: string; fork: boolean; outsider: boolean; headRepo: string; at: Date | null };

/** A payload's time: ISO 8601, or GitLab's older `2013-12-03 17:23:34 UTC`; null when missing or not a time. */
export function timeOf(v: unknown): Date | null {
  const t = str(v).trim();
  if (!t) return null;
  const d = new Date(t.replace(/^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?) UTC$/, "$1T$2Z"));
  return Number.isNaN(d.getTime()) ? null : d;
}

function pr(p: PrFields): HookEvent {
  if (!p.number) throw new PayloadError("a request without its number");
  if (p.action !== "closed" && p.action !== "ignored" && !SHA.test(p.headCommit)) throw new PayloadError("a request without its head commit");
  const { statusUrl, ...rest } = p;
  return statusUrl ? { kind: "pr", ...rest, statusUrl } : { kind: "pr", ...rest };
}

/** GitHub: `push`, `pull_request` (opened, reopened, synchronize, closed), `ping`. */
export function parseGitHub(event: string, body: Obj): HookEvent {
  if (event === "ping") return { kind: "ping" };
  if (event === "push") return push(str(body.ref), str(body.after), body.deleted === true, str(body.before));
  if (event !== "pull_request") return { kind: "other", event };
  const a = str(body.action);
  const p = obj(body.pull_request);
  const head = obj(p.head);
  const action: PrAction = a === "opened" || a === "reopened" ? "opened" : a === "synchronize" ? "synchronize" : a === "closed" ? "closed" : "ignored";
  const repository = obj(body.repository);
  // `head.repo` is null when the fork was deleted: not the base.
  const fork = !sameRepository(obj(head.repo), repository);
  const outsider = !MEMBER_ASSOCIATIONS.has(str(p.author_association));
  return pr({ action, providerAction: a, number: int(body.number) || int(p.number), headRef: str(head.ref), headCommit: str(head.sha), baseRef: str(obj(p.base).ref), statusUrl: str(p.statuses_url), repoPath: str(repository.full_name), fork, outsider, headRepo: str(obj(head.repo).full_name), at: timeOf(p.updated_at) });
}

/** Gitea: `push`, `pull_request` (opened, reopened, synchronized, closed). */
export function parseGitea(event: string, body: Obj): HookEvent {
  if (event === "push") return push(str(body.ref), str(body.after), false, str(body.before));
  if (event !== "pull_request") return { kind: "other", event };
  const a = str(body.action);
  const p = obj(body.pull_request);
  const head = obj(p.head);
  const action: PrAction = a === "opened" || a === "reopened" ? "opened" : a === "synchronized" ? "synchronize" : a === "closed" ? "closed" : "ignored";
  const repository = obj(body.repository);
  const headRepo = obj(head.repo);
  // Gitea names the head repository in `head.repo` and by id in `head.repo_id`.
  const fork = !sameRepository(headRepo, repository, int(headRepo.id) || int(head.repo_id));
  // Every Gitea request is an outsider's (docs/security.md, fork ↔ base repository): its payload never
  // says who the author is to the repository, and an AGit request (`git push origin HEAD:refs/for/main
  // -o topic=x`, open to anyone who can read the repository) has the base repository as its `head.repo`,
  // so "not a fork" proves nothing about the author. A member approves each head commit.
  return pr({ action, providerAction: a, number: int(body.number) || int(p.number), headRef: str(head.ref), headCommit: str(head.sha), baseRef: str(obj(p.base).ref), statusUrl: str(p.statuses_url), repoPath: str(repository.full_name), fork, outsider: true, headRepo: str(headRepo.full_name), at: timeOf(p.updated_at) });
}

/** GitLab: `Push Hook`, `Tag Push Hook`, `Merge Request Hook` (open, reopen, update with new commits, close, merge). */
export function parseGitLab(event: string, body: Obj): HookEvent {
  if (event === "Push Hook" || event === "Tag Push Hook") return push(str(body.ref), str(body.after), false, str(body.before));
  if (event !== "Merge Request Hook") return { kind: "other", event };
  const m = obj(body.object_attributes);
  const a = str(m.action);
  // An update without `oldrev` changed the title, labels or reviewers, not the commits.
  const action: PrAction =
    a === "open" || a === "reopen" ? "opened" : a === "update" && str(m.oldrev) ? "synchronize" : a === "close" || a === "merge" ? "closed" : "ignored";
  const source = int(m.source_project_id);
  const fork = source === 0 || source !== int(m.target_project_id);
  return pr({
    action,
    providerAction: a,
    number: int(m.iid),
    headRef: str(m.source_branch),
    headCommit: str(obj(m.last_commit).id),
    baseRef: str(m.target_branch),
    statusUrl: "",
    repoPath: str(obj(body.project).path_with_namespace),
    fork,
    outsider: fork,
    headRepo: str(obj(m.source).path_with_namespace),
    at: timeOf(m.updated_at),
  });
}

export function parseEvent(provider: GitProvider, event: string, body: Obj): HookEvent {
  return provider === "github" ? parseGitHub(event, body) : provider === "gitea" ? parseGitea(event, body) : parseGitLab(event, body);
}

/** Whether a pushed ref is the source's tracked branch (`main` tracks `refs/heads/main`; a full ref is compared as is). */
export function tracks(sourceRef: string, pushedRef: string): boolean {
  return sourceRef.startsWith("refs/") ? pushedRef === sourceRef : pushedRef === `refs/heads/${sourceRef}`;
}
