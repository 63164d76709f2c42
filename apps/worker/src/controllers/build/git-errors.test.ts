import { describe, expect, it } from "vitest";
import { gitFailure, gitVersionProblem, publicUrl, safeRef, safeUrl } from "./git-errors";

describe("git errors and inputs", () => {
  it.each([
    ["remote: Repository not found.\nfatal: repository 'https://h/x.git/' not found", "the repository does not exist or the credential cannot read it"],
    ["fatal: Authentication failed for 'https://h/x.git/'", "the repository does not exist or the credential cannot read it"],
    ["git@h: Permission denied (publickey).\nfatal: Could not read from remote repository.", "the server refused the deploy key"],
    ["Host key verification failed.", "the server's host key is not the one first seen for this source"],
    ["fatal: transport 'file' not allowed", "only https, http and ssh repository URLs are allowed"],
    ["fatal: unable to access 'https://h/': Could not resolve host: h", "cannot reach the repository's host"],
    ["fatal: unable to access 'https://h/app/': The requested URL returned error: 301", "the server answered with a redirect, which is not followed; use the repository's own URL (often the one ending in .git)"],
  ])("%s", (stderr, message) => {
    expect(gitFailure(stderr, []).message).toBe(message);
  });

  it("an unknown failure keeps its last line, without a secret or a URL's password", () => {
    const m = gitFailure("warning: x\nfatal: odd thing tok-SECRET-123 at https://u:pw@h/x.git", ["tok-SECRET-123"]).message;
    expect(m).not.toContain("tok-SECRET-123");
    expect(m).not.toContain("pw@");
  });

  it("refuses URLs and refs that are not plain https/ssh and branch names", () => {
    for (const url of ["ext::sh -c touch% /tmp/x", "file:///etc", "/srv/repo.git", "-uhttps://h/x", "https://h/x y"]) expect(safeUrl(url).ok, url).toBe(false);
    for (const url of ["https://github.com/a/b.git", "ssh://git@h:22/a/b.git", "git@github.com:a/b.git"]) expect(safeUrl(url).ok, url).toBe(true);
    for (const ref of ["--upload-pack=x", "a..b", "a b", "x.lock", "/x"]) expect(safeRef(ref).ok, ref).toBe(false);
    for (const ref of ["main", "release/1.2", "v1.0.0"]) expect(safeRef(ref).ok, ref).toBe(true);
    expect(publicUrl("https://user:tok@h/a.git")).toBe("https://h/a.git");
  });
});

describe("gitVersionProblem: git before 2.37 ignores the address pin (http.curloptResolve)", () => {
  it.each(["git version 2.37.0", "git version 2.39.5\n", "git version 2.43.0.windows.1", "git version 2.39.3 (Apple Git-146)", "git version 3.0.0", "git version 2.100.1"])("%s → runs", (out) => {
    expect(gitVersionProblem(out)).toBeNull();
  });
  it.each([
    ["git version 2.36.6", "git 2.36.6 is too old: builds need git 2.37 or newer on the worker (older git ignores the address pin, http.curloptResolve)"],
    ["git version 2.30.2\n", "git 2.30.2 is too old: builds need git 2.37 or newer on the worker (older git ignores the address pin, http.curloptResolve)"],
    ["git version 1.99.0", "git 1.99.0 is too old: builds need git 2.37 or newer on the worker (older git ignores the address pin, http.curloptResolve)"],
    ["git version 2.4.0", "git 2.4.0 is too old: builds need git 2.37 or newer on the worker (older git ignores the address pin, http.curloptResolve)"],
    ["hub version 2.14", 'git\'s version could not be read from "hub version 2.14"; builds need git 2.37 or newer on the worker (older git ignores the address pin, http.curloptResolve)'],
    ["", 'git\'s version could not be read from ""; builds need git 2.37 or newer on the worker (older git ignores the address pin, http.curloptResolve)'],
  ])("%s → refused", (out, message) => {
    expect(gitVersionProblem(out)).toBe(message);
  });
});
