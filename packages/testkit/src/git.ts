import { execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A fixed author, so commits are reproducible and no global git config is needed. */
const GIT_ENV = {
  GIT_AUTHOR_NAME: "levelrail test",
  GIT_AUTHOR_EMAIL: "test@levelrail.invalid",
  GIT_COMMITTER_NAME: "levelrail test",
  GIT_COMMITTER_EMAIL: "test@levelrail.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
  HOME: tmpdir(),
};

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run("git", args, { cwd, env: { ...process.env, ...GIT_ENV } });
  return stdout.trim();
}

export interface GitServerOptions {
  /** Require HTTP basic auth whose password is this token (any user name); absent: anonymous reads. */
  token?: string;
}

/** One repository on the server: where it is served, and how to push commits to it. */
export interface TestRepo {
  /** `http://127.0.0.1:<port>/<name>.git` */
  url: string;
  /** The bare repository on disk. */
  dir: string;
  /**
   * Commits `files` (path → content; null deletes) on `branch` (created from the last commit when new)
   * and pushes it to the served repository; returns the commit's 40-hex id.
   */
  commit(files: Record<string, string | null>, opts?: { branch?: string; message?: string }): Promise<string>;
  /** The commit a ref points to on the server, or null. */
  head(ref: string): Promise<string | null>;
}

export interface GitServer {
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** Creates an empty bare repository `<name>.git` served at `<base>/<name>.git`. */
  repo(name: string): Promise<TestRepo>;
  /** Every request's method and path (never its headers), in order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A git server on loopback for tests: Debian's `git http-backend` (smart HTTP) behind a small node
 * HTTP server, optionally requiring a token by basic auth. Repositories live in a temporary
 * directory removed on close. Used by the build controller's and the previews' tests.
 */
export async function startGitServer(opts: GitServerOptions = {}): Promise<GitServer> {
  const root = await mkdtemp(join(tmpdir(), "levelrail-git-"));
  const work = await mkdtemp(join(tmpdir(), "levelrail-git-work-"));
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (opts.token !== undefined && !authorized(req, opts.token)) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="levelrail-test"' }).end("unauthorized\n");
      return;
    }
    backend(root, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    base,
    requests,
    async repo(name) {
      const dir = join(root, `${name}.git`);
      await mkdir(dir, { recursive: true });
      await git(dir, ["init", "--bare", "--quiet", "--initial-branch=main"]);
      await git(dir, ["config", "http.receivepack", "true"]);
      // Serve a commit by its id (the build fetches exactly the commit it resolved).
      await git(dir, ["config", "uploadpack.allowReachableSHA1InWant", "true"]);
      const clone = join(work, name);
      await mkdir(clone, { recursive: true });
      await git(clone, ["init", "--quiet", "--initial-branch=main"]);
      let queue: Promise<unknown> = Promise.resolve();
      const commit: TestRepo["commit"] = (files, o = {}) => {
        const next = queue.then(() => commitTo(clone, dir, files, o.branch ?? "main", o.message ?? "change"));
        queue = next.catch(() => {});
        return next;
      };
      return {
        url: `${base}/${name}.git`,
        dir,
        commit,
        async head(ref) {
          try {
            return await git(dir, ["rev-parse", "--verify", "--quiet", `refs/heads/${ref}^{commit}`]);
          } catch {
            return null;
          }
        },
      };
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await rm(root, { recursive: true, force: true });
      await rm(work, { recursive: true, force: true });
    },
  };
}

async function commitTo(clone: string, bare: string, files: Record<string, string | null>, branch: string, message: string): Promise<string> {
  const branches = await git(clone, ["branch", "--list", "--format=%(refname:short)"]);
  const hasCommits = branches.length > 0;
  if (hasCommits) {
    const exists = branches.split("\n").includes(branch);
    await git(clone, exists ? ["checkout", "--quiet", branch] : ["checkout", "--quiet", "-b", branch]);
  } else {
    await git(clone, ["checkout", "--quiet", "-B", branch]);
  }
  for (const [path, content] of Object.entries(files)) {
    const file = join(clone, path);
    if (content === null) await rm(file, { force: true });
    else {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, content);
    }
  }
  await git(clone, ["add", "--all"]);
  await git(clone, ["commit", "--quiet", "--allow-empty", "-m", message]);
  await git(clone, ["push", "--quiet", "--force", bare, `${branch}:refs/heads/${branch}`]);
  return git(clone, ["rev-parse", "HEAD"]);
}

function authorized(req: IncomingMessage, token: string): boolean {
  const h = req.headers.authorization ?? "";
  if (!h.startsWith("Basic ")) return false;
  const decoded = Buffer.from(h.slice(6), "base64").toString("utf8");
  return decoded.slice(decoded.indexOf(":") + 1) === token;
}

/** Runs `git http-backend` as a CGI for one request. */
function backend(root: string, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", "http://localhost");
  const child = spawn("git", ["http-backend"], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: "1",
      GIT_CONFIG_NOSYSTEM: "1",
      HOME: tmpdir(),
      REQUEST_METHOD: req.method ?? "GET",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      REMOTE_ADDR: "127.0.0.1",
      REMOTE_USER: "test",
      ...(req.headers["content-encoding"] ? { HTTP_CONTENT_ENCODING: req.headers["content-encoding"] } : {}),
      ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
    },
  });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on("data", (chunk: Buffer) => {
    if (headersDone) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    const endLf = head.indexOf("\n\n");
    const at = end >= 0 ? end : endLf;
    if (at < 0) return;
    const sep = end >= 0 ? 4 : 2;
    const lines = head.subarray(0, at).toString("utf8").split(/\r?\n/);
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const i = line.indexOf(":");
      const k = line.slice(0, i).trim().toLowerCase();
      const v = line.slice(i + 1).trim();
      if (k === "status") status = Number.parseInt(v, 10);
      else headers[k] = v;
    }
    res.writeHead(status, headers);
    headersDone = true;
    const rest = head.subarray(at + sep);
    if (rest.length) res.write(rest);
  });
  child.on("close", () => {
    if (!headersDone) res.writeHead(500).end("http-backend failed\n");
    else res.end();
  });
  child.on("error", () => {
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
}
