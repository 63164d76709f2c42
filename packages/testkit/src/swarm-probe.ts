import { spawn } from "node:child_process";
import type { PortCheck, PortProber, ProbeOutcome } from "@levelrail/docker/swarm/preflight";
import { LISTENER, SENDER } from "@levelrail/docker/swarm/probe-programs";
import { inNetns } from "./swarm-host";
import type { SwarmNode } from "./swarm";

// The preflight's port probes between the harness's namespaces: a listener placed in the
// receiver's namespace (when the port is free there), a sender in the sender's, both small Node
// programs started with nsenter (argument arrays; the programs are constants, their inputs argv).

interface Proc {
  lines: string[];
  exit: Promise<number>;
  kill(): void;
  /** Resolves with the first line matching one of `words`. */
  first(words: string[]): Promise<string>;
}

function start(ns: string, code: string, args: string[]): Proc {
  // `node -e CODE a b`: the program sees ["node", "a", "b"] as process.argv.
  const [cmd, ...rest] = inNetns(ns, [process.execPath, "-e", code, ...args]) as [string, ...string[]];
  const child = spawn(cmd, rest, { stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  const onData = (b: Buffer) => {
    lines.push(...String(b).split("\n").filter(Boolean));
    for (const w of waiters.splice(0)) w();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  let done = false;
  const exit = new Promise<number>((resolve) => child.on("close", (code) => {
    // Before the waiters look again: one that finds no line must see the process is gone.
    done = true;
    resolve(code ?? 1);
    for (const w of waiters.splice(0)) w();
  }));
  return {
    lines,
    exit,
    kill: () => child.kill("SIGKILL"),
    first: (words) =>
      new Promise((resolve) => {
        const look = () => {
          const hit = lines.find((l) => words.some((w) => l.startsWith(w)));
          if (hit) resolve(hit);
          else if (done) resolve(lines.join(" ") || "exited");
          else waiters.push(look);
        };
        look();
      }),
  };
}

/** A prober over the harness's nodes (by address); each probe waits at most `timeoutMs`. */
export function netnsProber(nodes: readonly SwarmNode[], timeoutMs = 2_000): PortProber {
  const byAddress = (a: string) => {
    const n = nodes.find((x) => x.address === a);
    if (!n) throw new Error(`no harness node at ${a}`);
    return n;
  };
  return {
    async probe(c: PortCheck): Promise<ProbeOutcome> {
      const from = byAddress(c.from.address);
      const to = byAddress(c.to.address);
      const listener = start(to.netns, LISTENER, [c.proto, String(c.port), String(timeoutMs + 1_000)]);
      try {
        const ready = await listener.first(["listening", "busy", "error"]);
        if (ready !== "listening") {
          listener.kill();
          if (ready !== "busy") return { status: "fail", detail: `could not listen on ${to.netns}: ${ready}` };
          // The engine holds the port: a TCP connect still proves it; a datagram to it proves nothing here.
          if (c.proto === "udp") return { status: "unverified", detail: `${c.to.name} holds UDP ${c.port} itself; no listener could be placed` };
          const sender = start(from.netns, SENDER, [c.proto, c.to.address, String(c.port), String(timeoutMs)]);
          const code = await sender.exit;
          return code === 0 ? { status: "pass" } : { status: "fail", detail: sender.lines.join(" ") || `exit ${code}` };
        }
        const sender = start(from.netns, SENDER, [c.proto, c.to.address, String(c.port), String(timeoutMs)]);
        const [got, sent] = await Promise.all([listener.exit, sender.exit]);
        if (got === 0) return { status: "pass" };
        if (sent !== 0) return { status: "fail", detail: sender.lines.join(" ") || `sender exit ${sent}` };
        return { status: "fail", detail: `nothing arrived within ${timeoutMs + 1_000} ms` };
      } finally {
        listener.kill();
      }
    },
  };
}
