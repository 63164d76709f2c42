import { spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isIP } from "node:net";
import { join } from "node:path";
import { type ResolvedAddress, type TargetPolicy, TargetError, resolveTarget, systemLookup } from "@levelrail/services/notifications/address";
import { type RepositoryEndpoint, credentialMayReach, repositoryEndpoint, tokenOverPlainHttp } from "@levelrail/spec/git";
import { type GitFailure, gitFailure, gitVersionProblem, isCommitId, safeRef, safeUrl } from "./git-errors";

/**
 * A credential opened from its seal, for one git call: never logged, never in argv. `hosts`: where
 * it may be sent (a token with none goes nowhere; a deploy key with none anywhere).
 */
export type GitCredentialSecret = ({ kind: "token"; username: string; token: string } | { kind: "ssh"; privateKey: string }) & { hosts: string[] };

/** Where a repository is and how to reach it. */
export interface GitAccess {
  url: string;
  credential: GitCredentialSecret | null;
  /** The source's own known-hosts file (ssh): its host key is trusted on first use, then pinned. */
  knownHostsFile: string;
}

/** The git calls the build controller and the poller make (a port: tests may fake it). */
export interface GitClient {
  /** The commit `ref` points to (a branch, then a tag; a 40-hex commit id is itself). */
  resolve(access: GitAccess, ref: string, signal?: AbortSignal): Promise<string>;
  /** Checks out exactly `commit` into the empty directory `dir` (a shallow fetch of that one commit). */
  checkout(access: GitAccess, commit: string, dir: string, signal?: AbortSignal): Promise<void>;
}

/** A git call that failed, its message already clear text for `git_source.last_error` (never a secret). */
export class GitError extends Error {
  constructor(
    readonly failure: GitFailure,
    message: string,
  ) {
    super(message);
    this.name = "GitError";
  }
}

export interface GitClientOptions {
  /** The longest one git call may take (ms); killed with its children after. */
  timeoutMs: number;
  /** The `git` binary (Debian's). */
  binary?: string;
  /**
   * The installation's address policy (LEVELRAIL_ALLOW_PRIVATE_TARGETS, the panel's own host): the
   * repository's host is resolved once, checked, and git connects to exactly that address.
   */
  policy: TargetPolicy;
}

/**
 * Only the transports a source may name: `ext::` (runs a command) and `file://` (reads the worker's
 * disk) never run, whatever the URL says or a submodule or redirect asks.
 */
const PROTOCOLS = ["-c", "protocol.allow=never", "-c", "protocol.https.allow=always", "-c", "protocol.http.allow=always", "-c", "protocol.ssh.allow=always"];
/**
 * No hooks, no credential helpers of the host, no prompts; no HTTP redirects (one would lead git,
 * and the token its askpass hands out, to a host neither the credential nor the address policy allows).
 */
const HARDENING = ["-c", "core.hooksPath=/dev/null", "-c", "credential.helper=", "-c", "advice.detachedHead=false", "-c", "http.followRedirects=false"];

/**
 * Where git may connect for `endpoint`: a token never over plain http (unless private targets are
 * allowed), the credential must be bound to its host, and the host,
 * resolved once here, must be allowed by the address policy. Answers git's options that pin it to
 * that address (curl's resolve list over HTTP(S); ssh's HostName, its known-hosts entry still kept
 * under the name). An address literal needs no pin.
 */
async function pinnedTarget(endpoint: RepositoryEndpoint, credential: GitCredentialSecret | null, policy: TargetPolicy): Promise<{ config: string[]; ssh: string[] }> {
  // A source saved before the panel refused it: the token stays off plain http all the same.
  const plain = credential && tokenOverPlainHttp(credential, endpoint, policy.allowPrivate);
  if (plain) throw new GitError("url", `${plain}; it was not used`);
  if (credential && !credentialMayReach(credential, endpoint, { allowPlainHttp: policy.allowPrivate })) {
    const where = credential.hosts.length ? credential.hosts.join(", ") : "no host";
    throw new GitError("access", `the source's git credential may be sent only to ${where}, not to ${endpoint.host}:${endpoint.port}; it was not used`);
  }
  // Every address the name resolved to is checked (resolveTarget) and pinned, so curl still tries each in turn.
  const lookup = policy.lookup ?? systemLookup;
  let addresses: ResolvedAddress[] = [];
  try {
    const first = await resolveTarget(endpoint.host, {
      ...policy,
      lookup: async (h) => {
        const found = await lookup(h);
        if (h === endpoint.host) addresses = found;
        return found;
      },
    });
    if (!addresses.length) addresses = [first];
  } catch (err) {
    if (err instanceof TargetError) throw new GitError("address", `the repository's host is refused: ${err.message}`);
    throw err;
  }
  if (isIP(endpoint.host)) return { config: [], ssh: [] };
  if (endpoint.scheme !== "ssh") {
    // curl matches its resolve list by name without case but with a trailing dot: both spellings are pinned.
    const to = addresses.map((a) => (a.family === 6 ? `[${a.address}]` : a.address)).join(",");
    return { config: [endpoint.host, `${endpoint.host}.`].flatMap((h) => ["-c", `http.curloptResolve=${h}:${endpoint.port}:${to}`]), ssh: [] };
  }
  // ssh takes one address: an IPv4 one when there is one (the likelier route). core.sshCommand runs
  // through sh: each option single-quoted (a host name and an address hold no quote).
  const address = (addresses.find((a) => a.family === 4) ?? addresses[0]!).address;
  const alias = endpoint.port === 22 ? endpoint.host : `[${endpoint.host}]:${endpoint.port}`;
  return { config: [], ssh: ["-o", `'HostName=${address}'`, "-o", `'HostKeyAlias=${alias}'`] };
}

/**
 * Debian's `git` through argument arrays (never a shell), each call under a deadline. Its version is
 * asked once: a git older than 2.37 fails every call, saying so (`gitVersionProblem`).
 */
export function gitClient(o: GitClientOptions): GitClient {
  const binary = o.binary ?? "git";
  /** `git --version`, asked once (a git that could not run is asked again next time): null, or why it may not run. */
  let versionProblem: Promise<string | null> | null = null;
  const checkVersion = (): Promise<string | null> => {
    versionProblem ??= runGit(binary, ["--version"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C", LC_ALL: "C" }, cwd: tmpdir(), timeoutMs: o.timeoutMs, signal: undefined, secrets: [] }).then(gitVersionProblem, (err: unknown) => {
      versionProblem = null;
      throw err;
    });
    return versionProblem;
  };

  /** Runs one git call with the credential wired in (askpass or a key file in a private temp dir). */
  async function withAccess<T>(access: GitAccess, work: (run: Run) => Promise<T>): Promise<T> {
    const url = safeUrl(access.url);
    if (!url.ok) throw new GitError("url", url.message);
    const endpoint = repositoryEndpoint(access.url);
    if (!endpoint) throw new GitError("url", "the repository URL must name its host as a DNS name or an IP address");
    const pinned = await pinnedTarget(endpoint, access.credential, o.policy);
    const tooOld = await checkVersion();
    if (tooOld) throw new GitError("unknown", tooOld);
    const scratch = await mkdtemp(join(tmpdir(), "levelrail-git-"));
    await chmod(scratch, 0o700);
    try {
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: scratch,
        GIT_TERMINAL_PROMPT: "0",
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
        LANG: "C",
        LC_ALL: "C",
      };
      const config = [...PROTOCOLS, ...HARDENING, ...pinned.config];
      const secrets: string[] = [];
      const c = access.credential;
      if (c?.kind === "token") {
        // The token reaches git through the environment of its askpass helper, never argv.
        const askpass = join(scratch, "askpass");
        await writeFile(askpass, '#!/bin/sh\ncase "$1" in\n  Username*) printf \'%s\\n\' "$LEVELRAIL_GIT_USERNAME" ;;\n  *) printf \'%s\\n\' "$LEVELRAIL_GIT_TOKEN" ;;\nesac\n', { mode: 0o700 });
        Object.assign(env, { GIT_ASKPASS: askpass, LEVELRAIL_GIT_USERNAME: c.username, LEVELRAIL_GIT_TOKEN: c.token });
        secrets.push(c.token);
      }
      const ssh = ["ssh", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=accept-new", "-o", `UserKnownHostsFile=${access.knownHostsFile}`, ...pinned.ssh];
      if (c?.kind === "ssh") {
        const key = join(scratch, "id");
        await writeFile(key, c.privateKey.endsWith("\n") ? c.privateKey : `${c.privateKey}\n`, { mode: 0o600 });
        ssh.push("-i", key, "-o", "IdentitiesOnly=yes");
        secrets.push(c.privateKey);
      } else {
        ssh.push("-o", "IdentitiesOnly=yes", "-o", "IdentityFile=/dev/null");
      }
      await mkdir(join(access.knownHostsFile, ".."), { recursive: true });
      config.push("-c", `core.sshCommand=${ssh.join(" ")}`);
      return await work((args, signal, cwd) => runGit(binary, [...config, ...args], { env, cwd: cwd ?? scratch, timeoutMs: o.timeoutMs, signal, secrets }));
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  return {
    async resolve(access, ref, signal) {
      const r = safeRef(ref);
      if (!r.ok) throw new GitError("ref", r.message);
      if (isCommitId(ref)) return ref.toLowerCase();
      // A full ref (refs/heads/main, refs/tags/v1) is asked as it is; a short one as a branch, then a tag.
      const full = ref.startsWith("refs/");
      const patterns = full ? [ref, `${ref}^{}`] : [`refs/heads/${ref}`, `refs/tags/${ref}`, `refs/tags/${ref}^{}`];
      const out = await withAccess(access, (run) => run(["ls-remote", "--", access.url, ...patterns], signal));
      const refs = new Map(
        out
          .split("\n")
          .map((l) => l.split("\t"))
          .filter((p): p is [string, string] => p.length === 2 && isCommitId(p[0] ?? ""))
          .map(([sha, name]) => [name, sha]),
      );
      const sha = full ? (refs.get(`${ref}^{}`) ?? refs.get(ref)) : (refs.get(`refs/heads/${ref}`) ?? refs.get(`refs/tags/${ref}^{}`) ?? refs.get(`refs/tags/${ref}`));
      if (!sha) throw new GitError("ref", `ref ${ref} does not exist`);
      return sha;
    },
    async checkout(access, commit, dir, signal) {
      if (!isCommitId(commit)) throw new GitError("ref", `not a commit id: ${commit}`);
      await withAccess(access, async (run) => {
        await run(["init", "--quiet", "--", dir], signal);
        await run(["fetch", "--quiet", "--depth", "1", "--no-tags", "--", access.url, commit], signal, dir);
        await run(["checkout", "--quiet", "--detach", commit], signal, dir);
      });
    },
  };
}

type Run = (args: string[], signal?: AbortSignal, cwd?: string) => Promise<string>;

/**
 * One git process in its own process group, killed with everything it started (a remote helper,
 * ssh) on its deadline or on `signal`. A failure is a `GitError` with clear text, secrets removed.
 */
function runGit(binary: string, args: string[], o: { env: Record<string, string>; cwd: string; timeoutMs: number; signal: AbortSignal | undefined; secrets: string[] }): Promise<string> {
  return new Promise((resolve, reject) => {
    if (o.signal?.aborted) return reject(new GitError("cancelled", "cancelled"));
    const child = spawn(binary, args, { env: o.env as NodeJS.ProcessEnv, cwd: o.cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let ended: "timeout" | "cancelled" | null = null;
    const kill = (why: "timeout" | "cancelled") => {
      ended ??= why;
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => kill("timeout"), o.timeoutMs);
    const onAbort = () => kill("cancelled");
    o.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (d: Buffer) => {
      if (stdout.length < 4_000_000) stdout += d.toString("utf8");
    });
    child.stderr.on("data", (d: Buffer) => {
      if (stderr.length < 64_000) stderr += d.toString("utf8");
    });
    child.on("error", (err) => {
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
      reject(new GitError("unknown", `git could not run: ${err.message}`));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
      if (ended === "timeout") return reject(new GitError("timeout", `git ${args.find((a) => !a.startsWith("-") && !a.includes("=")) ?? ""} took longer than ${Math.round(o.timeoutMs / 1000)} s`.replace("  ", " ")));
      if (ended === "cancelled") return reject(new GitError("cancelled", "cancelled"));
      if (code === 0) return resolve(stdout);
      const f = gitFailure(stderr, o.secrets);
      reject(new GitError(f.failure, f.message));
    });
  });
}
