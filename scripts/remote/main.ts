// The remote commands (docs/operating/projects-environments-spec.md#config-as-code-export-diff-apply): login, export, diff, apply against the panel's HTTP API, from a
// laptop or CI. Exit codes: 0 done (diff: nothing to do), 2 diff found changes, 1 an error.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { ApplyResult } from "@levelrail/services/spec/apply";
import { planIsEmpty } from "@levelrail/services/spec/plan";
import { readSpec } from "@levelrail/spec/env-spec-read";
import { RemoteError, call, environmentId } from "./client";
import { type Connection, loadConnection, normalizeUrl, saveCredentials } from "./credentials";
import { formatPlan, secretValues } from "./format";

export const REMOTE_USAGE = `  login --url U                             read an API token on stdin and keep it with the URL in
                                            ~/.config/levelrail/credentials (mode 0600)
  export --env <project>/<environment>      print the environment as a spec (YAML) with its resourceVersion
  diff -f FILE [--env P/E]                  print what apply would change; exit 0 nothing, 2 changes, 1 error
  apply -f FILE [--env P/E] [--prune] [--deploy] [--force] [--secret KEY=@env:VAR]...
                                            make the environment match FILE in one transaction
  (these use LEVELRAIL_URL and LEVELRAIL_TOKEN, else what login stored)`;

export const REMOTE_COMMANDS = new Set(["login", "export", "diff", "apply"]);

interface Io {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
  stdin: () => Promise<string>;
}

function connection(env: NodeJS.ProcessEnv): Connection {
  const c = loadConnection(env);
  if (!c) throw new RemoteError("no panel to talk to: set LEVELRAIL_URL and LEVELRAIL_TOKEN, or run `levelrail login --url U` first", null);
  return c;
}

/** The file's text, checked here first (each problem with its line and column), and the environment it names. */
function readFile(file: string, io: Io): { text: string; env: string } | null {
  const text = readFileSync(file, "utf8");
  const r = readSpec(text);
  if (!r.ok) {
    for (const p of r.problems) io.err(`${file}:${p.line ?? "?"}:${p.column ?? "?"}: ${p.field}: ${p.message}`);
    return null;
  }
  return { text, env: `${r.spec.metadata.project}/${r.spec.metadata.environment}` };
}

async function send(conn: Connection, envRef: string, body: unknown, query: Record<string, boolean>): Promise<ApplyResult> {
  const id = await environmentId(conn, envRef);
  const q = Object.entries(query)
    .filter(([, v]) => v)
    .map(([k]) => `${k}=true`)
    .join("&");
  const res = await call(conn, "POST", `/api/v1/environments/${id}/apply${q ? `?${q}` : ""}`, { body });
  return (await res.json()) as ApplyResult;
}

export async function runRemote(command: string, args: string[], io: Io): Promise<number> {
  const { values: f } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: { url: { type: "string" }, env: { type: "string" }, file: { type: "string", short: "f" }, prune: { type: "boolean" }, deploy: { type: "boolean" }, force: { type: "boolean" }, secret: { type: "string", multiple: true } },
  });
  if (command === "login") {
    if (!f.url) throw new RemoteError("--url is required: levelrail login --url https://panel.example.com (the token on stdin)", null);
    const token = (await io.stdin()).trim();
    if (!token) throw new RemoteError("no token on stdin: create one with `levelrail token create` on the host, or in the panel, and pipe it in", null);
    const conn = { url: normalizeUrl(f.url), token };
    await call(conn, "GET", "/api/v1/projects"); // the token works before it is kept
    io.out(`logged in to ${conn.url}; the token is in ${saveCredentials(conn, io.env)}`);
    return 0;
  }
  if (command === "export") {
    if (!f.env) throw new RemoteError("--env <project>/<environment> is required", null);
    const conn = connection(io.env);
    const id = await environmentId(conn, f.env);
    io.out((await (await call(conn, "GET", `/api/v1/environments/${id}/spec`, { accept: "application/yaml" })).text()).replace(/\n$/, ""));
    return 0;
  }
  if (!f.file) throw new RemoteError(`-f FILE is required: levelrail ${command} -f environment.yaml`, null);
  const file = readFile(f.file, io);
  if (!file) return 1;
  const target = f.env ?? file.env;
  const conn = connection(io.env);
  if (command === "diff") {
    const r = await send(conn, target, { spec: file.text }, { dryRun: true, prune: f.prune === true });
    for (const line of formatPlan(r.plan)) io.out(line);
    if (r.stale) io.out(`! ${target} changed since this file was exported (resourceVersion ${r.resourceVersion} now): apply refuses without --force`);
    return planIsEmpty(r.plan) ? 0 : 2;
  }
  const secrets = secretValues(f.secret ?? [], io.env);
  const r = await send(conn, target, { spec: file.text, secrets }, { prune: f.prune === true, force: f.force === true, deploy: f.deploy === true });
  for (const line of formatPlan({ ...r.plan, drift: [] })) io.out(line);
  if (r.deployed.length) io.out(`deploying ${r.deployed.join(", ")}`);
  io.out(`applied to ${target}; resourceVersion ${r.resourceVersion}`);
  return 0;
}

/** For cli.ts: runs a remote command with the process's streams; an error is one line and exit 1. */
export async function remoteMain(command: string, args: string[]): Promise<number> {
  const io: Io = {
    env: process.env,
    out: (l) => console.log(l),
    err: (l) => console.error(l),
    stdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
  };
  try {
    return await runRemote(command, args, io);
  } catch (err) {
    io.err(`levelrail ${command}: ${(err as Error).message}`);
    return 1;
  }
}
