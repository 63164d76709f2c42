import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

// The host side of the swarm harness: commands as argument arrays (never a shell), network
// namespaces, veth pairs, the bridge, the FORWARD rule, and what a crashed run leaves behind.

/** Runs argv; resolves with stdout, rejects with the command, its exit and its stderr. */
export function run(argv: readonly string[], opts: { timeoutMs?: number } = {}): Promise<string> {
  const [cmd, ...args] = argv;
  if (!cmd) throw new Error("run: empty argv");
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: "utf8", timeout: opts.timeoutMs ?? 60_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${argv.join(" ")} failed: ${stderr.trim() || err.message}`));
      else resolve(stdout);
    });
  });
}

/** Runs argv and ignores a failure (for teardown: whatever is already gone is fine). */
export async function attempt(argv: readonly string[]): Promise<void> {
  await run(argv).catch(() => undefined);
}

/** `nsenter --net=/var/run/netns/<ns> argv…`: inside the namespace's network, without `ip netns exec`'s remount of /sys. */
export function inNetns(ns: string, argv: readonly string[]): string[] {
  return ["nsenter", `--net=/var/run/netns/${ns}`, ...argv];
}

export interface HostLayout {
  /** Prefix of every namespace (`<prefix><n>`) and veth (`<prefix>-v<n>` on the bridge, `<prefix>-p<n>` moved into the namespace). */
  prefix: string;
  bridge: string;
  /** First three octets of the /24, e.g. `10.231.0`; the bridge is `.1`, node n is `.1n` (`.11`, `.12`, …). */
  net: string;
}

export const bridgeAddress = (l: HostLayout) => `${l.net}.1`;
export const nodeAddress = (l: HostLayout, n: number) => `${l.net}.${10 + n}`;
export const netnsName = (l: HostLayout, n: number) => `${l.prefix}${n}`;

/** The FORWARD rule between the bridge's ports (the host's policy is DROP with br_netfilter on). */
const forwardRule = (l: HostLayout) => ["FORWARD", "-i", l.bridge, "-o", l.bridge, "-j", "ACCEPT"];

export async function createBridge(l: HostLayout): Promise<void> {
  await run(["ip", "link", "add", l.bridge, "type", "bridge"]);
  await run(["ip", "addr", "add", `${bridgeAddress(l)}/24`, "dev", l.bridge]);
  await run(["ip", "link", "set", l.bridge, "up"]);
  await run(["iptables", "-I", forwardRule(l)[0] as string, "1", ...forwardRule(l).slice(1)]);
}

/** A namespace with `eth0` (one end of a veth whose other end is on the bridge) at the node's address. */
export async function createNode(l: HostLayout, n: number, mtu?: number): Promise<void> {
  const ns = netnsName(l, n);
  const outer = `${l.prefix}-v${n}`;
  const inner = `${l.prefix}-p${n}`;
  await run(["ip", "netns", "add", ns]);
  await run(["ip", "link", "add", outer, "type", "veth", "peer", "name", inner]);
  await run(["ip", "link", "set", inner, "netns", ns]);
  await run(["ip", "-n", ns, "link", "set", inner, "name", "eth0"]);
  if (mtu) await run(["ip", "-n", ns, "link", "set", "eth0", "mtu", String(mtu)]);
  await run(["ip", "-n", ns, "addr", "add", `${nodeAddress(l, n)}/24`, "dev", "eth0"]);
  await run(["ip", "-n", ns, "link", "set", "eth0", "up"]);
  await run(["ip", "-n", ns, "link", "set", "lo", "up"]);
  await run(["ip", "link", "set", outer, "master", l.bridge]);
  await run(["ip", "link", "set", outer, "up"]);
}

/** The MTU of the namespace's `eth0`. */
export async function interfaceMtu(l: HostLayout, n: number): Promise<number> {
  const out = await run(["ip", "-n", netnsName(l, n), "-o", "link", "show", "eth0"]);
  const m = / mtu (\d+) /.exec(out);
  if (!m?.[1]) throw new Error(`no MTU in: ${out}`);
  return Number(m[1]);
}

/** Sends SIGTERM to the pid in `pidfile` (if it runs), waits up to `graceMs`, then SIGKILL. */
export async function stopByPidfile(pidfile: string, graceMs = 15_000): Promise<void> {
  if (!existsSync(pidfile)) return;
  const pid = Number(readFileSync(pidfile, "utf8").trim());
  if (!Number.isInteger(pid) || pid <= 1) return;
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (alive()) process.kill(pid, "SIGKILL");
  while (alive()) await new Promise((r) => setTimeout(r, 50));
}

/** Unmounts (lazily, deepest first) whatever is still mounted under `dir`: a killed dockerd leaves its mounts. */
export async function unmountUnder(dir: string): Promise<void> {
  const mounts = readFileSync("/proc/self/mounts", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[1] ?? "")
    .map((p) => p.replace(/\\040/g, " "))
    .filter((p) => p === dir || p.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) await attempt(["umount", "-l", m]);
}

/** Removes the namespaces, veths, bridge and FORWARD rule of this layout, whatever of them exists. */
export async function removeHostNetwork(l: HostLayout): Promise<void> {
  const namespaces = (await run(["ip", "netns", "list"]).catch(() => ""))
    .split("\n")
    .map((line) => line.split(" ")[0] ?? "")
    .filter((ns) => new RegExp(`^${l.prefix}\\d+$`).test(ns));
  for (const ns of namespaces) await attempt(["ip", "netns", "delete", ns]);
  const links = (await run(["ip", "-o", "link", "show"]).catch(() => ""))
    .split("\n")
    .map((line) => /^\d+: ([^:@]+)/.exec(line)?.[1] ?? "")
    .filter((name) => new RegExp(`^${l.prefix}-[vp]\\d+$`).test(name));
  for (const link of links) await attempt(["ip", "link", "delete", link]);
  await attempt(["ip", "link", "delete", l.bridge]);
  // `-C` succeeds while the rule is there; a crashed run may have inserted it more than once.
  for (let i = 0; i < 10; i++) {
    const there = await run(["iptables", "-C", ...forwardRule(l)]).then(() => true, () => false);
    if (!there) break;
    await attempt(["iptables", "-D", ...forwardRule(l)]);
  }
}
