import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GitServer, type TestRepo, startGitServer } from "@levelrail/testkit/git";
import { type GitAccess, GitError, gitClient } from "./git";

/**
 * The git client against a real `git http-backend` on loopback, through a wrapper that records
 * every argv git is started with (and its environment's names): the token is never in argv, and
 * only the https, http and ssh transports can run.
 */
const TOKEN = "tok-9f8e7d6c5b4a39281706f5e4d3c2b1a0";
const dir = mkdtempSync(join(tmpdir(), "lrbd-git-"));
const argvLog = join(dir, "argv.log");
const recorder = join(dir, "git-recorder");
let server: GitServer;
let repo: TestRepo;
let commit: string;
// The servers here are on loopback: an installation that allows private targets (LEVELRAIL_ALLOW_PRIVATE_TARGETS=true).
const ALLOW = { allowPrivate: true };
const git = gitClient({ timeoutMs: 20_000, binary: recorder, policy: ALLOW });
const access = (over: Partial<GitAccess> = {}): GitAccess => ({
  url: repo.url,
  credential: { kind: "token", username: "x-access-token", token: TOKEN, hosts: ["127.0.0.1"] },
  knownHostsFile: join(dir, "known_hosts", "src"),
  ...over,
});

beforeAll(async () => {
  writeFileSync(recorder, `#!/bin/sh\nprintf '%s\\n' "$*" >> ${argvLog}\nexec git "$@"\n`, { mode: 0o755 });
  server = await startGitServer({ token: TOKEN });
  repo = await server.repo("app");
  commit = await repo.commit({ "Dockerfile": "FROM scratch\n", "sub/file.txt": "hello\n" });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("git client", () => {
  it("resolves a branch and checks out exactly that commit with a token that is never in argv", async () => {
    expect(await git.resolve(access(), "main")).toBe(commit);
    const out = mkdtempSync(join(dir, "co-"));
    await git.checkout(access(), commit, out);
    expect(readFileSync(join(out, "sub/file.txt"), "utf8")).toBe("hello\n");
    const argv = readFileSync(argvLog, "utf8");
    expect(argv).toContain("protocol.allow=never");
    expect(argv).toContain(`ls-remote -- ${repo.url}`);
    expect(argv).toContain(`fetch --quiet --depth 1 --no-tags -- ${repo.url} ${commit}`);
    expect(argv).not.toContain(TOKEN);
  });

  it("another branch resolves to its commit; a missing ref, a wrong token and a missing repository are clear", async () => {
    const tagged = await repo.commit({ "x.txt": "1\n" }, { branch: "release" });
    expect(await git.resolve(access(), "release")).toBe(tagged);
    // A full ref (a source may track refs/heads/<branch>; a push build asks its tip before deploying).
    expect(await git.resolve(access(), "refs/heads/release")).toBe(tagged);
    expect(await git.resolve(access(), "refs/heads/main")).toBe(commit);
    await expect(git.resolve(access(), "refs/heads/nope")).rejects.toThrow("ref refs/heads/nope does not exist");
    await expect(git.resolve(access(), "nope")).rejects.toThrow("ref nope does not exist");
    await expect(git.resolve(access({ credential: { kind: "token", username: "x", token: "wrong-token", hosts: ["127.0.0.1"] } }), "main")).rejects.toThrow("the repository does not exist or the credential cannot read it");
    await expect(git.resolve(access({ url: `${server.base}/missing.git` }), "main")).rejects.toThrow("the repository does not exist or the credential cannot read it");
    await expect(git.resolve(access({ credential: null }), "main")).rejects.toThrow("the repository does not exist or the credential cannot read it");
  });

  it("never runs ext:: or file:// transports, nor an option disguised as a ref", async () => {
    const marker = join(dir, "pwned");
    for (const url of [`ext::sh -c touch% ${marker}`, `file://${repo.dir}`, repo.dir, `--upload-pack=touch ${marker}`]) {
      const err = await git.resolve(access({ url }), "main").catch((e: unknown) => e);
      expect(err, url).toBeInstanceOf(GitError);
    }
    await expect(git.resolve(access(), "--upload-pack=touch")).rejects.toThrow(/not a valid branch or tag name/);
    expect(existsSync(marker)).toBe(false);
  });

  it("a deploy key goes to ssh as a 0600 file named by -i (never argv), pinned per source; a refusal is clear", async () => {
    // No sshd here: an `ssh` on PATH that records how git started it and refuses like a server would.
    const bin = join(dir, "bin");
    const sshLog = join(dir, "ssh.log");
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, "ssh"),
      `#!/bin/sh
printf '%s\n' "$*" >> ${sshLog}
while [ $# -gt 0 ]; do if [ "$1" = "-i" ]; then stat -c '%a' "$2" >> ${sshLog}; cat "$2" >> ${sshLog}; fi; shift; done
echo 'git@127.0.0.1: Permission denied (publickey).' >&2
exit 255
`,
      { mode: 0o755 },
    );
    const key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA-fake-key-material\n-----END OPENSSH PRIVATE KEY-----";
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      const known = join(dir, "known_hosts", "ssh-source");
      await expect(git.resolve(access({ url: "git@127.0.0.1:shop/app.git", credential: { kind: "ssh", privateKey: key, hosts: [] }, knownHostsFile: known }), "main")).rejects.toThrow("the server refused the deploy key");
      const seen = readFileSync(sshLog, "utf8");
      expect(seen).toContain("IdentitiesOnly=yes");
      expect(seen).toContain("StrictHostKeyChecking=accept-new");
      expect(seen).toContain(`UserKnownHostsFile=${known}`);
      expect(seen).toMatch(/\n600\n/);
      expect(seen).toContain("fake-key-material"); // the file ssh read held the key …
      expect(readFileSync(argvLog, "utf8")).not.toContain("fake-key-material"); // … never git's argv
      const keyFile = /-i (\S+)/.exec(seen)?.[1];
      expect(keyFile && existsSync(keyFile)).toBe(false); // removed after the call

      // A name is resolved once by the worker and ssh connects to that address; the host key stays kept under the name.
      const named = gitClient({ timeoutMs: 20_000, binary: recorder, policy: { allowPrivate: true, lookup: async () => [{ address: "127.0.0.1", family: 4 }] } });
      const sshKey = { kind: "ssh" as const, privateKey: key, hosts: ["git.levelrail.test"] };
      await expect(named.resolve(access({ url: "ssh://git@git.levelrail.test:2222/shop/app.git", credential: sshKey, knownHostsFile: known }), "main")).rejects.toThrow("the server refused the deploy key");
      const pinned = readFileSync(sshLog, "utf8");
      expect(pinned).toContain("-o HostName=127.0.0.1 -o HostKeyAlias=[git.levelrail.test]:2222");
      expect(pinned).toContain("git@git.levelrail.test");
      // A deploy key bound to hosts is not offered to another one: ssh never starts.
      const before = readFileSync(sshLog, "utf8");
      await expect(named.resolve(access({ url: "git@elsewhere.levelrail.test:shop/app.git", credential: sshKey, knownHostsFile: known }), "main")).rejects.toThrow("may be sent only to git.levelrail.test");
      expect(readFileSync(sshLog, "utf8")).toBe(before);
    } finally {
      process.env.PATH = path;
    }
  });

  it("a token goes only to the hosts its credential names: a source pointed at another server never reaches it (issue 42, finding 5)", async () => {
    // Two git servers on loopback, the token's and another (by port): the credential names the first.
    const other = await startGitServer();
    try {
      const elsewhere = await other.repo("app");
      await elsewhere.commit({ "Dockerfile": "FROM scratch\n" });
      const port = new URL(server.base).port;
      const bound = { kind: "token" as const, username: "x-access-token", token: TOKEN, hosts: [`127.0.0.1:${port}`] };
      expect(await git.resolve(access({ credential: bound }), "main")).toBe(commit);
      for (const call of [() => git.resolve(access({ url: elsewhere.url, credential: bound }), "main"), () => git.checkout(access({ url: elsewhere.url, credential: bound }), commit, mkdtempSync(join(dir, "co-")))]) {
        const err = await call().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(GitError);
        expect((err as GitError).failure).toBe("access");
        expect((err as GitError).message).toBe(`the source's git credential may be sent only to 127.0.0.1:${port}, not to 127.0.0.1:${new URL(other.base).port}; it was not used`);
      }
      // The other server was never even asked (so never sent the token).
      expect(other.requests).toEqual([]);
      // A token that names no host (one no source used before hosts existed) is sent nowhere.
      const nowhere = await git.resolve(access({ credential: { ...bound, hosts: [] } }), "main").catch((e: unknown) => e);
      expect((nowhere as GitError).failure).toBe("access");
    } finally {
      await other.close();
    }
  });

  it("a token never goes over plain http:// unless private targets are allowed: refused before git runs (issue 42 follow-up)", async () => {
    const port = new URL(server.base).port;
    const url = `http://git.levelrail.test:${port}/app.git`;
    const token = { kind: "token" as const, username: "x-access-token", token: TOKEN, hosts: ["git.levelrail.test"] };
    const asked = server.requests.length;
    const argv = existsSync(argvLog) ? readFileSync(argvLog, "utf8") : "";
    // Its host resolves to the server (a name the address policy would let through: only the scheme is wrong).
    const closed = gitClient({ timeoutMs: 20_000, binary: recorder, policy: { allowPrivate: false, lookup: async () => [{ address: "127.0.0.1", family: 4 }] } });
    for (const call of [() => closed.resolve(access({ url, credential: token }), "main"), () => closed.checkout(access({ url, credential: token }), commit, mkdtempSync(join(dir, "co-")))]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GitError);
      expect((err as GitError).failure).toBe("url");
      expect((err as GitError).message).toBe("a token is never sent over plain http://; use the repository's https:// URL; it was not used");
      expect((err as GitError).message).not.toContain(TOKEN);
    }
    expect(server.requests.length).toBe(asked);
    expect(existsSync(argvLog) ? readFileSync(argvLog, "utf8") : "").toBe(argv); // git never ran
    // Where private targets are allowed (this test's loopback server), it goes.
    const open = gitClient({ timeoutMs: 20_000, binary: recorder, policy: { allowPrivate: true, lookup: async () => [{ address: "127.0.0.1", family: 4 }] } });
    expect(await open.resolve(access({ url, credential: token }), "main")).toBe(commit);
  });

  it("the repository's host goes through the address policy, resolved once and pinned (issue 42, finding 7)", async () => {
    const port = new URL(server.base).port;
    const named = (host: string) => `http://${host}:${port}/app.git`;
    const asked = server.requests.length;
    // Not allowed to reach private targets: a loopback address, or a name resolving to one, is refused before git runs.
    const closed = gitClient({ timeoutMs: 20_000, binary: recorder, policy: { allowPrivate: false, lookup: async () => [{ address: "127.0.0.1", family: 4 }] } });
    for (const url of [repo.url, named("git.levelrail.test")]) {
      const err = await closed.resolve(access({ url, credential: null }), "main").catch((e: unknown) => e);
      expect(err, url).toBeInstanceOf(GitError);
      expect((err as GitError).failure, url).toBe("address");
      expect((err as GitError).message, url).toContain("LEVELRAIL_ALLOW_PRIVATE_TARGETS");
    }
    expect(server.requests.length).toBe(asked);

    // Allowed: a name no DNS knows reaches the server only because git connects to the address the worker resolved.
    let lookups = 0;
    const open = gitClient({
      timeoutMs: 20_000,
      binary: recorder,
      policy: {
        allowPrivate: true,
        lookup: async () => {
          lookups += 1;
          return [{ address: "127.0.0.1", family: 4 }];
        },
      },
    });
    const token = { kind: "token" as const, username: "x-access-token", token: TOKEN, hosts: ["git.levelrail.test"] };
    expect(await open.resolve(access({ url: named("git.levelrail.test"), credential: token }), "main")).toBe(commit);
    expect(await open.resolve(access({ url: named("GIT.levelrail.test"), credential: token }), "main")).toBe(commit);
    expect(await open.resolve(access({ url: named("git.levelrail.test."), credential: token }), "main")).toBe(commit);
    await open.checkout(access({ url: named("git.levelrail.test"), credential: token }), commit, mkdtempSync(join(dir, "co-")));
    expect(lookups).toBe(4); // once per call, never again by git
    // Every address the name has is pinned, each tried in turn (nothing listens on the first).
    const two = gitClient({ timeoutMs: 20_000, binary: recorder, policy: { allowPrivate: true, lookup: async () => [{ address: "127.0.0.3", family: 4 }, { address: "127.0.0.1", family: 4 }] } });
    expect(await two.resolve(access({ url: named("git.levelrail.test"), credential: token }), "main")).toBe(commit);
    expect(readFileSync(argvLog, "utf8")).toContain(`http.curloptResolve=git.levelrail.test:${port}:127.0.0.3,127.0.0.1`);

    // A redirect is not followed: it would lead git, and the token, past both checks.
    const target = await startGitServer();
    const redirector = createServer((req, res) => res.writeHead(301, { location: `${target.base}/app.git${(req.url ?? "").replace(/^\/app\.git/, "")}` }).end());
    await new Promise<void>((resolve) => redirector.listen(0, "127.0.0.1", resolve));
    try {
      await target.repo("app").then((r) => r.commit({ "a.txt": "1\n" }));
      const via = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/app.git`;
      const err = await git.resolve(access({ url: via, credential: { ...token, hosts: ["127.0.0.1"] } }), "main").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GitError);
      expect((err as GitError).message).toMatch(/^the server answered with a redirect, which is not followed/);
      expect(target.requests).toEqual([]);
    } finally {
      redirector.close();
      await target.close();
    }
    expect(readFileSync(argvLog, "utf8")).toContain(`http.curloptResolve=git.levelrail.test:${port}:127.0.0.1`);
  });

  it("a git older than 2.37 (which ignores the address pin) fails every call saying so; its version is asked once", async () => {
    const old = join(dir, "git-2.30");
    const calls = join(dir, "old-calls.log");
    // Answers --version as Debian bullseye's git; anything else runs the real git (which would reach the server).
    writeFileSync(old, `#!/bin/sh\nprintf '%s\\n' "$*" >> ${calls}\nif [ "$1" = --version ]; then echo 'git version 2.30.2'; exit 0; fi\nexec git "$@"\n`, { mode: 0o755 });
    const client = gitClient({ timeoutMs: 20_000, binary: old, policy: ALLOW });
    const asked = server.requests.length;
    for (const call of [() => client.resolve(access(), "main"), () => client.checkout(access(), commit, mkdtempSync(join(dir, "co-")))]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GitError);
      expect((err as GitError).message).toBe("git 2.30.2 is too old: builds need git 2.37 or newer on the worker (older git ignores the address pin, http.curloptResolve)");
    }
    expect(readFileSync(calls, "utf8")).toBe("--version\n");
    expect(server.requests.length).toBe(asked);
  });

  it("a call past its deadline is killed", async () => {
    const slow = gitClient({ timeoutMs: 1, binary: recorder, policy: ALLOW });
    await expect(slow.resolve(access(), "main")).rejects.toThrow(/took longer than/);
  });
});
