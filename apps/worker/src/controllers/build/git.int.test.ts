import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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
const git = gitClient({ timeoutMs: 20_000, binary: recorder });
const access = (over: Partial<GitAccess> = {}): GitAccess => ({
  url: repo.url,
  credential: { kind: "token", username: "x-access-token", token: TOKEN },
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
    await expect(git.resolve(access(), "nope")).rejects.toThrow("ref nope does not exist");
    await expect(git.resolve(access({ credential: { kind: "token", username: "x", token: "wrong-token" } }), "main")).rejects.toThrow("the repository does not exist or the credential cannot read it");
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
      await expect(git.resolve(access({ url: "git@127.0.0.1:shop/app.git", credential: { kind: "ssh", privateKey: key }, knownHostsFile: known }), "main")).rejects.toThrow("the server refused the deploy key");
      const seen = readFileSync(sshLog, "utf8");
      expect(seen).toContain("IdentitiesOnly=yes");
      expect(seen).toContain("StrictHostKeyChecking=accept-new");
      expect(seen).toContain(`UserKnownHostsFile=${known}`);
      expect(seen).toMatch(/\n600\n/);
      expect(seen).toContain("fake-key-material"); // the file ssh read held the key …
      expect(readFileSync(argvLog, "utf8")).not.toContain("fake-key-material"); // … never git's argv
      const keyFile = /-i (\S+)/.exec(seen)?.[1];
      expect(keyFile && existsSync(keyFile)).toBe(false); // removed after the call
    } finally {
      process.env.PATH = path;
    }
  });

  it("a call past its deadline is killed", async () => {
    const slow = gitClient({ timeoutMs: 1, binary: recorder });
    await expect(slow.resolve(access(), "main")).rejects.toThrow(/took longer than/);
  });
});
