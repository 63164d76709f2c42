import { redactForms, redactionForms } from "@levelrail/spec/redact";

/** Why a git call failed, in the words `git_source.last_error` and a failed build show. */
export type GitFailure = "url" | "address" | "ref" | "access" | "key-refused" | "host-key" | "unreachable" | "timeout" | "cancelled" | "unknown";

const COMMIT = /^[0-9a-f]{40}$/i;
export const isCommitId = (s: string) => COMMIT.test(s);

type Check = { ok: true } | { ok: false; message: string };

/**
 * Only https, http and ssh URLs (or scp-like `user@host:path`), never one that could read as an
 * option; `ext::` and `file://` are refused here and by git's protocol policy both.
 */
export function safeUrl(url: string): Check {
  if (url.startsWith("-") || /[\s\0]/.test(url)) return { ok: false, message: "the repository URL is not a valid https or ssh URL" };
  if (/^(https?|ssh):\/\/[^/]+\/./i.test(url)) return { ok: true };
  if (/^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/].*$/.test(url)) return { ok: true };
  return { ok: false, message: "only https, http and ssh repository URLs are allowed" };
}

/** A branch or tag name git would accept and that cannot read as an option or a pattern. */
export function safeRef(ref: string): Check {
  if (!/^[A-Za-z0-9._/-]{1,200}$/.test(ref) || ref.startsWith("-") || ref.startsWith("/") || ref.endsWith("/") || ref.includes("..") || ref.endsWith(".lock") || ref.includes("//")) {
    return { ok: false, message: `ref ${JSON.stringify(ref.slice(0, 80))} is not a valid branch or tag name` };
  }
  return { ok: true };
}

/** The oldest git the worker runs: older ones ignore `http.curloptResolve` without a word (added in 2.37). */
export const MIN_GIT_VERSION = [2, 37] as const;

/**
 * Why the `git --version` output `out` names a git the worker may not run, or null. Git before 2.37
 * ignores `http.curloptResolve`, so the address the worker checked against the installation's
 * address policy would not be the one git connects to (it would resolve the name again itself).
 * An output that names no version is refused too.
 */
export function gitVersionProblem(out: string): string | null {
  const [major, minor] = MIN_GIT_VERSION;
  const need = `builds need git ${major}.${minor} or newer on the worker (older git ignores the address pin, http.curloptResolve)`;
  const m = /^git version (\d+)\.(\d+)(?:\.\d+)*/.exec(out.trim());
  if (!m) return `git's version could not be read from ${JSON.stringify(out.trim().slice(0, 60))}; ${need}`;
  const [have, hMajor, hMinor] = [m[0].slice("git version ".length), Number(m[1]), Number(m[2])];
  if (hMajor > major || (hMajor === major && hMinor >= minor)) return null;
  return `git ${have} is too old: ${need}`;
}

/** A URL as it may be shown and labelled: without a user or password. */
export function publicUrl(url: string): string {
  const m = /^([a-z]+:\/\/)([^@/]*@)?(.*)$/i.exec(url);
  return m ? `${m[1]}${m[3]}` : url;
}

const RULES: [RegExp, GitFailure, string][] = [
  [/Permission denied \(publickey|sign_and_send_pubkey|Load key .*: invalid format/i, "key-refused", "the server refused the deploy key"],
  [/Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/i, "host-key", "the server's host key is not the one first seen for this source"],
  [/transport '.*' not allowed|Unable to find remote helper/i, "url", "only https, http and ssh repository URLs are allowed"],
  // Redirects are not followed (one could lead git and the token to a host neither check allowed).
  [/returned error: 30[12378]\b|unable to update url base from redirection/i, "url", "the server answered with a redirect, which is not followed; use the repository's own URL (often the one ending in .git)"],
  [
    /Repository not found|not found|Authentication failed|could not read (Username|Password)|terminal prompts disabled|does not appear to be a git repository|HTTP 40[134]|returned error: 40[134]|access denied|could not read from remote repository/i,
    "access",
    "the repository does not exist or the credential cannot read it",
  ],
  [/Could not resolve host|Connection refused|Connection timed out|Network is unreachable|No route to host|Failed to connect/i, "unreachable", "cannot reach the repository's host"],
  [/not our ref|couldn't find remote ref|no such remote ref|upload-pack: not our ref/i, "ref", "the commit is no longer on the server (force-pushed away)"],
];

/** Maps git's stderr to one clear sentence; the last line of an unknown failure is kept (secrets removed). */
export function gitFailure(stderr: string, secrets: readonly string[]): { failure: GitFailure; message: string } {
  for (const [re, failure, message] of RULES) if (re.test(stderr)) return { failure, message };
  const forms = redactionForms(secrets);
  const last =
    stderr
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .pop() ?? "git failed";
  // A URL with a password in it never shows either.
  return { failure: "unknown", message: redactForms(last.replace(/([a-z]+:\/\/)[^@/\s]*@/gi, "$1"), forms).slice(0, 500) };
}
