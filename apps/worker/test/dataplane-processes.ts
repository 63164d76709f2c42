import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../dataplane/src/main.ts", import.meta.url));
const READY_MS = 30_000;

export interface DataPlaneProcesses {
  stop(): Promise<void>;
}

/**
 * The two mesh DNS replicas as production runs them: the data plane's own entry point, each in a
 * process of its own (a benchmark's worker then cannot delay a DNS answer Caddy waits for, as it
 * does when both share one event loop). They follow `<dataDir>/dataplane/state.json`.
 */
export async function startDataPlaneProcesses(o: { dataDir: string; shortName: string; port: number; log: (line: string) => void }): Promise<DataPlaneProcesses> {
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(async (c) => {
        if (c.exitCode !== null || c.signalCode !== null) return;
        const exited = once(c, "exit");
        c.kill("SIGTERM");
        const timer = setTimeout(() => c.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }),
    );
  };
  try {
    for (const replica of [0, 1]) {
      const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
        cwd: join(fileURLToPath(new URL("../../..", import.meta.url))),
        env: {
          ...process.env,
          LEVELRAIL_DATA_DIR: o.dataDir,
          LEVELRAIL_SHORT_NAME: o.shortName,
          LEVELRAIL_MESH_DNS_PORT: String(o.port),
          LEVELRAIL_MESH_DNS_REPLICA: String(replica),
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`data plane replica ${replica} was not ready within ${READY_MS / 1000} s`)), READY_MS);
        const onLine = (chunk: Buffer) => {
          for (const line of chunk.toString().split("\n").filter(Boolean)) {
            o.log(`[dataplane ${replica}] ${line}`);
            if (line.includes(" ready (pid ")) {
              clearTimeout(timer);
              resolve();
            }
          }
        };
        child.stdout!.on("data", onLine);
        child.stderr!.on("data", onLine);
        child.once("exit", (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`data plane replica ${replica} exited (${signal ?? code}) before it was ready`));
        });
      });
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { stop };
}
