import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as dnsPacket from "dns-packet";
import { DATAPLANE_DIR, DATAPLANE_STATE_FILE, type DataPlaneState } from "@levelrail/spec/dataplane";
import { waitFor } from "@levelrail/testkit/wait";
import { askTcp } from "../src/tcp";
import { DEFAULT_TIMINGS } from "../src/watchdog";
import { repoRoot } from "./panel";

/** Writes the state file the data plane follows (as the worker does: the whole file). */
export function writeState(dataDir: string, state: DataPlaneState): void {
  const dir = join(dataDir, DATAPLANE_DIR);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${DATAPLANE_STATE_FILE}.tmp`), JSON.stringify(state));
  renameSync(join(dir, `${DATAPLANE_STATE_FILE}.tmp`), join(dir, DATAPLANE_STATE_FILE));
}

/** One real data plane process (`node --import tsx apps/dataplane/src/main.ts`), as the engine would run a replica. */
export class Replica {
  private child: ChildProcess | null = null;
  output = "";
  /** How it ended: the signal (SIGKILL from its sibling's watchdog) and when (performance.now()). */
  exit: { signal: string | null; code: number | null; at: number } | null = null;
  /** When it said it was ready (performance.now()). */
  readyAt = 0;

  constructor(
    readonly replica: number,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  get pid(): number {
    if (!this.child?.pid) throw new Error(`replica ${this.replica} is not running`);
    return this.child.pid;
  }

  get port(): number {
    return Number(this.env.LEVELRAIL_MESH_DNS_PORT) + this.replica;
  }

  async start(): Promise<void> {
    this.output = "";
    this.exit = null;
    const child = spawn(process.execPath, ["--import", "tsx", "apps/dataplane/src/main.ts"], {
      cwd: repoRoot,
      env: { ...this.env, LEVELRAIL_MESH_DNS_REPLICA: String(this.replica) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    const take = (b: Buffer) => (this.output = (this.output + b.toString()).slice(-100_000));
    child.stdout!.on("data", take);
    child.stderr!.on("data", take);
    child.once("exit", (code, signal) => (this.exit = { code, signal, at: performance.now() }));
    await waitFor(`replica ${this.replica} to be ready`, async () => {
      if (this.exit) throw new Error(`replica ${this.replica} exited: ${this.output.slice(-2000)}`);
      return this.output.includes(" ready (pid") || undefined;
    }, { timeoutMs: 60_000, intervalMs: 20, describe: async () => `its output: ${this.output.slice(-1500)}` });
    this.readyAt = performance.now();
  }

  /** Waits until it logged `text`. */
  async logged(text: string, timeoutMs = 10_000): Promise<void> {
    await waitFor(`replica ${this.replica} to log ${JSON.stringify(text)}`, async () => this.output.includes(text) || undefined, { timeoutMs, intervalMs: 20 });
  }

  /** Waits until its sibling's watchdog knows it and treats it as settled (past the grace of a replica that just started). */
  async settled(sibling: Replica): Promise<void> {
    await sibling.logged(`[watchdog] sibling is pid ${this.pid}`);
    await sleep(DEFAULT_TIMINGS.youngMs + 200 - (performance.now() - this.readyAt));
  }

  signal(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || this.exit) return;
    const gone = new Promise((r) => child.once("exit", r));
    child.kill("SIGCONT");
    child.kill("SIGTERM");
    const t = setTimeout(() => child.kill("SIGKILL"), 5000);
    await gone;
    clearTimeout(t);
  }
}

/** An SRV question over TCP to `port`: the answer's target and port, and how long it took. */
export async function askSrv(port: number, name: string, timeoutMs = 2000): Promise<{ target: string; port: number; ms: number }> {
  const t0 = performance.now();
  const q = dnsPacket.encode({ type: "query", id: Math.floor(Math.random() * 65535), flags: 0, questions: [{ type: "SRV", name }] });
  const reply = dnsPacket.decode(await askTcp(port, q, timeoutMs));
  const srv = reply.answers?.find((a) => a.type === "SRV");
  if (srv?.type !== "SRV") throw new Error(`no SRV answer for ${name} from ${port}`);
  return { target: srv.data.target, port: srv.data.port, ms: performance.now() - t0 };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
