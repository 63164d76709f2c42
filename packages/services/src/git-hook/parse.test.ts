import { describe, expect, it } from "vitest";
import { PayloadError, parseGitea, parseGitHub, parseGitLab, payloadOf, timeOf, tracks } from "./parse";
import { deliveryOf, hmacHex, providerOf, verifySignature } from "./signature";

const A = "a".repeat(40);
const B = "b".repeat(40);
const ZERO = "0".repeat(40);
const SECRET = "s3cret-of-the-source";
const headers = (h: Record<string, string>) => new Headers(h);
const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

// Shaped like each provider's documented payloads (trimmed to what is read, plus some of what is not).
const githubPush = { ref: "refs/heads/main", before: A, after: B, deleted: false, created: false, repository: { full_name: "acme/shop", clone_url: "https://github.com/acme/shop.git" }, head_commit: { id: B, message: "fix" } };
const githubPr = (action: string) => ({
  action,
  number: 12,
  pull_request: {
    number: 12,
    state: action === "closed" ? "closed" : "open",
    merged: false,
    statuses_url: `https://api.github.com/repos/acme/shop/statuses/${B}`,
    author_association: "MEMBER",
    head: { ref: "feature/x", sha: B, repo: { id: 1296269, full_name: "acme/shop", statuses_url: "https://api.github.com/repos/acme/shop/statuses/{sha}" } },
    base: { ref: "main", sha: A, repo: { id: 1296269, full_name: "acme/shop" } },
  },
  repository: { id: 1296269, full_name: "acme/shop" },
});
const giteaPr = (action: string) => ({
  action,
  number: 7,
  pull_request: { id: 99, number: 7, state: "open", head: { ref: "topic", sha: B, repo_id: 1, repo: { id: 1, full_name: "acme/shop" } }, base: { ref: "main", sha: A, repo_id: 1 } },
  repository: { id: 1, full_name: "acme/shop" },
});
const gitlabMr = (action: string, oldrev?: string) => ({
  object_kind: "merge_request",
  event_type: "merge_request",
  project: { id: 15, path_with_namespace: "acme/shop" },
  object_attributes: {
    iid: 3,
    id: 301,
    action,
    state: "opened",
    source_branch: "topic",
    target_branch: "main",
    source_project_id: 15,
    target_project_id: 15,
    source: { path_with_namespace: "acme/shop" },
    last_commit: { id: B },
    ...(oldrev ? { oldrev } : {}),
  },
});

describe("signatures", () => {
  it("GitHub: sha256=<hmac of the raw body>; anything else is refused", () => {
    const body = bytes(githubPush);
    const good = headers({ "x-github-event": "push", "x-hub-signature-256": `sha256=${hmacHex(SECRET, body)}` });
    expect(providerOf(good)).toBe("github");
    expect(verifySignature("github", good, body, SECRET)).toBe(true);
    expect(verifySignature("github", good, body, "another secret")).toBe(false);
    expect(verifySignature("github", good, bytes({ ...githubPush, after: A }), SECRET)).toBe(false);
    expect(verifySignature("github", headers({ "x-hub-signature-256": hmacHex(SECRET, body) }), body, SECRET)).toBe(false);
    expect(verifySignature("github", headers({ "x-hub-signature-256": "sha256=zz" }), body, SECRET)).toBe(false);
    expect(verifySignature("github", headers({}), body, SECRET)).toBe(false);
  });
  it("Gitea: hex hmac in X-Gitea-Signature; Gitea is told apart though it sends X-GitHub-Event too", () => {
    const body = bytes(giteaPr("opened"));
    const h = headers({ "x-gitea-event": "pull_request", "x-github-event": "pull_request", "x-gitea-signature": hmacHex(SECRET, body), "x-gitea-delivery": "d-1" });
    expect(providerOf(h)).toBe("gitea");
    expect(verifySignature("gitea", h, body, SECRET)).toBe(true);
    expect(verifySignature("gitea", headers({ "x-gitea-signature": hmacHex("x", body) }), body, SECRET)).toBe(false);
    expect(deliveryOf("gitea", h)).toBe("d-1");
  });
  it("GitLab: X-Gitlab-Token equal to the secret", () => {
    const h = headers({ "x-gitlab-event": "Push Hook", "x-gitlab-token": SECRET, "x-gitlab-event-uuid": "u-1" });
    expect(providerOf(h)).toBe("gitlab");
    expect(verifySignature("gitlab", h, new Uint8Array(), SECRET)).toBe(true);
    expect(verifySignature("gitlab", headers({ "x-gitlab-token": `${SECRET}x` }), new Uint8Array(), SECRET)).toBe(false);
    expect(verifySignature("gitlab", headers({ "x-gitlab-token": "" }), new Uint8Array(), SECRET)).toBe(false);
    expect(deliveryOf("gitlab", h)).toBe("u-1");
    expect(providerOf(headers({ "content-type": "application/json" }))).toBeNull();
  });
});

describe("parsers", () => {
  it("push: ref and commit; a deletion (all-zero after) is marked", () => {
    expect(parseGitHub("push", githubPush)).toEqual({ kind: "push", ref: "refs/heads/main", commit: B, deleted: false, before: A });
    expect(parseGitHub("push", { ...githubPush, after: ZERO, deleted: true })).toMatchObject({ kind: "push", deleted: true });
    expect(parseGitea("push", { ref: "refs/heads/main", before: A, after: B })).toEqual({ kind: "push", ref: "refs/heads/main", commit: B, deleted: false, before: A });
    expect(parseGitLab("Push Hook", { object_kind: "push", ref: "refs/heads/main", before: A, after: B })).toMatchObject({ before: A });
    expect(parseGitHub("push", { ref: "refs/heads/main", after: B })).toMatchObject({ before: "" });
    expect(parseGitLab("Push Hook", { object_kind: "push", ref: "refs/heads/main", before: A, after: ZERO, checkout_sha: null })).toMatchObject({ deleted: true });
    expect(parseGitLab("Tag Push Hook", { object_kind: "tag_push", ref: "refs/tags/v1", before: ZERO, after: B })).toMatchObject({ ref: "refs/tags/v1", commit: B });
    expect(() => parseGitHub("push", { ref: "refs/heads/main", after: "nope" })).toThrow(PayloadError);
  });
  it("pull and merge requests: the action in the product's words, number, head, base and status URL", () => {
    expect(parseGitHub("pull_request", githubPr("opened"))).toEqual({
      kind: "pr",
      action: "opened",
      providerAction: "opened",
      number: 12,
      headRef: "feature/x",
      headCommit: B,
      baseRef: "main",
      statusUrl: `https://api.github.com/repos/acme/shop/statuses/${B}`,
      repoPath: "acme/shop",
      fork: false,
      outsider: false,
      headRepo: "acme/shop",
      at: null,
    });
    const actions = (f: (a: string) => ReturnType<typeof parseGitHub>) => ["opened", "reopened", "synchronize", "synchronized", "closed", "labeled"].map((a) => (f(a) as { action: string }).action);
    expect(actions((a) => parseGitHub("pull_request", githubPr(a)))).toEqual(["opened", "opened", "synchronize", "ignored", "closed", "ignored"]);
    expect(actions((a) => parseGitea("pull_request", giteaPr(a)))).toEqual(["opened", "opened", "ignored", "synchronize", "closed", "ignored"]);
    expect(parseGitea("pull_request", giteaPr("opened"))).toMatchObject({ number: 7, headRef: "topic", headCommit: B, baseRef: "main" });
    expect(parseGitLab("Merge Request Hook", gitlabMr("open"))).toMatchObject({ action: "opened", number: 3, headRef: "topic", headCommit: B, baseRef: "main", repoPath: "acme/shop" });
    expect(parseGitLab("Merge Request Hook", gitlabMr("update", A))).toMatchObject({ action: "synchronize" });
    expect(parseGitLab("Merge Request Hook", gitlabMr("update"))).toMatchObject({ action: "ignored" });
    expect(parseGitLab("Merge Request Hook", gitlabMr("merge"))).toMatchObject({ action: "closed" });
    expect(parseGitHub("ping", { zen: "Keep it logically awesome.", hook_id: 1 })).toEqual({ kind: "ping" });
    expect(parseGitHub("issues", {})).toEqual({ kind: "other", event: "issues" });
    expect(() => parseGitHub("pull_request", { action: "opened", pull_request: { head: { sha: B } } })).toThrow(PayloadError);
  });
  it("a request from a fork, or by an author the forge marks as outside the repository, is not trusted; a payload that does not say is not trusted", () => {
    const gh = githubPr("opened");
    const ghWith = (pr: Record<string, unknown>) => ({ ...gh, pull_request: { ...gh.pull_request, ...pr } });
    const forkRepo = { id: 4242, full_name: "mallory/shop" };
    expect(parseGitHub("pull_request", ghWith({ head: { ...gh.pull_request.head, repo: forkRepo } }))).toMatchObject({ fork: true, outsider: false, headRepo: "mallory/shop" });
    // A deleted fork: `head.repo` is null.
    expect(parseGitHub("pull_request", ghWith({ head: { ...gh.pull_request.head, repo: null } }))).toMatchObject({ fork: true });
    // Same name, another id (a repository renamed and recreated): the id decides.
    expect(parseGitHub("pull_request", ghWith({ head: { ...gh.pull_request.head, repo: { id: 7, full_name: "acme/shop" } } }))).toMatchObject({ fork: true });
    for (const association of ["CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "FIRST_TIMER", "NONE", "MANNEQUIN", undefined]) {
      expect(parseGitHub("pull_request", ghWith({ author_association: association })), String(association)).toMatchObject({ fork: false, outsider: true });
    }
    for (const association of ["OWNER", "MEMBER", "COLLABORATOR"]) expect(parseGitHub("pull_request", ghWith({ author_association: association }))).toMatchObject({ outsider: false });
    const gt = giteaPr("opened");
    // Gitea never says who the author is: every request waits for approval, the base repository's too.
    expect(parseGitea("pull_request", gt)).toMatchObject({ fork: false, outsider: true });
    // An AGit request (`git push origin HEAD:refs/for/main -o topic=x`, anyone with read access): its head repository is the base.
    const agit = { action: "opened", number: 5, repository: { id: 7, full_name: "acme/shop" }, pull_request: { number: 5, head: { ref: "refs/pull/5/head", sha: B, repo_id: 7, repo: { id: 7, full_name: "acme/shop" } }, base: { ref: "main", repo: { id: 7, full_name: "acme/shop" } } } };
    expect(parseGitea("pull_request", agit)).toMatchObject({ kind: "pr", fork: false, outsider: true });
    expect(parseGitea("pull_request", { ...gt, pull_request: { ...gt.pull_request, head: { ref: "topic", sha: B, repo_id: 2, repo: { id: 2, full_name: "mallory/shop" } } } })).toMatchObject({ fork: true, outsider: true, headRepo: "mallory/shop" });
    expect(parseGitea("pull_request", { ...gt, pull_request: { ...gt.pull_request, head: { ref: "topic", sha: B } } })).toMatchObject({ fork: true, outsider: true });
    const gl = gitlabMr("open");
    expect(parseGitLab("Merge Request Hook", gl)).toMatchObject({ fork: false, outsider: false });
    expect(parseGitLab("Merge Request Hook", { ...gl, object_attributes: { ...gl.object_attributes, source_project_id: 16 } })).toMatchObject({ fork: true, outsider: true });
    const { source_project_id: _s, ...noSource } = gl.object_attributes;
    expect(parseGitLab("Merge Request Hook", { ...gl, object_attributes: noSource })).toMatchObject({ fork: true, outsider: true });
  });
  it("a request event's time, as each forge stamps it (what tells a replayed delivery from a new one)", () => {
    const gh = githubPr("opened");
    expect(parseGitHub("pull_request", { ...gh, pull_request: { ...gh.pull_request, updated_at: "2026-12-01T10:00:00Z" } })).toMatchObject({ at: new Date("2026-12-01T10:00:00Z") });
    const gt = giteaPr("opened");
    expect(parseGitea("pull_request", { ...gt, pull_request: { ...gt.pull_request, updated_at: "2026-12-01T11:00:00+01:00" } })).toMatchObject({ at: new Date("2026-12-01T10:00:00Z") });
    const gl = gitlabMr("open");
    expect(parseGitLab("Merge Request Hook", { ...gl, object_attributes: { ...gl.object_attributes, updated_at: "2026-12-01 10:00:00 UTC" } })).toMatchObject({ at: new Date("2026-12-01T10:00:00Z") });
    expect(timeOf("2026-12-01T10:00:00.123Z")).toEqual(new Date("2026-12-01T10:00:00.123Z"));
    for (const v of [undefined, "", "yesterday", 12]) expect(timeOf(v), String(v)).toBeNull();
  });
  it("bodies: JSON, or GitHub's form encoding; the tracked branch", () => {
    expect(payloadOf(new TextEncoder().encode(`payload=${encodeURIComponent(JSON.stringify({ a: 1 }))}`), "application/x-www-form-urlencoded")).toEqual({ a: 1 });
    expect(() => payloadOf(new TextEncoder().encode("[1]"), "application/json")).toThrow(PayloadError);
    expect(() => payloadOf(new TextEncoder().encode("nope"), "application/json")).toThrow(PayloadError);
    expect(tracks("main", "refs/heads/main")).toBe(true);
    expect(tracks("main", "refs/heads/main2")).toBe(false);
    expect(tracks("main", "refs/tags/main")).toBe(false);
    expect(tracks("refs/tags/v1", "refs/tags/v1")).toBe(true);
  });
});
