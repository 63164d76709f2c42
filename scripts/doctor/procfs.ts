// Who listens on a TCP port, from /proc: the listening sockets' inodes (/proc/net/tcp, tcp6), the
// processes holding them (/proc/<pid>/fd links `socket:[inode]`), and their names and parents.
import { readFileSync, readdirSync, readlinkSync } from "node:fs";

/** The few /proc reads doctor makes; null or [] when a path cannot be read (a process gone, no permission). */
export interface ProcFs {
  read(path: string): string | null;
  list(path: string): string[];
  link(path: string): string | null;
}

export const hostProc: ProcFs = {
  read: (p) => {
    try {
      return readFileSync(p, "utf8");
    } catch {
      return null;
    }
  },
  list: (p) => {
    try {
      return readdirSync(p);
    } catch {
      return [];
    }
  },
  link: (p) => {
    try {
      return readlinkSync(p);
    } catch {
      return null;
    }
  },
};

const TCP_LISTEN = "0A";

/** Pure: the inodes of the sockets listening on `port` in one /proc/net/tcp{,6} table. */
export function listeningInodes(table: string, port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const out: string[] = [];
  for (const line of table.split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
    const local = f[1];
    if (!local || f[3] !== TCP_LISTEN) continue;
    if (local.slice(local.lastIndexOf(":") + 1).toUpperCase() !== hexPort) continue;
    const inode = f[9];
    if (inode && inode !== "0") out.push(inode);
  }
  return out;
}

export interface Proc {
  pid: number;
  /** `/proc/<pid>/comm`: `nginx`, `node`, `caddy`. */
  name: string;
  cmdline: string;
}

export function describeProc(fs: ProcFs, pid: number): Proc {
  const name = fs.read(`/proc/${pid}/comm`)?.trim() || "?";
  const cmdline = (fs.read(`/proc/${pid}/cmdline`) ?? "").split("\0").filter(Boolean).join(" ");
  return { pid, name, cmdline };
}

/** The parent of a process (`/proc/<pid>/stat`, the field after the command in parentheses), or null. */
export function parentOf(fs: ProcFs, pid: number): number | null {
  const stat = fs.read(`/proc/${pid}/stat`);
  if (!stat) return null;
  const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  return Number.isInteger(ppid) && ppid > 0 ? ppid : null;
}

/** The one of `roots` that `pid` is or runs under (a process Caddy forked, say), or null. */
export function rootAmong(fs: ProcFs, pid: number, roots: ReadonlySet<number>): number | null {
  for (let p: number | null = pid, depth = 0; p !== null && depth < 64; p = parentOf(fs, p), depth++) if (roots.has(p)) return p;
  return null;
}

export interface PortListeners {
  /** Whether any socket listens on the port. */
  listening: boolean;
  /** The processes holding those sockets. */
  holders: Proc[];
  /** Listening sockets no visible process holds (another user's, without root). */
  unseen: number;
}

/** Who listens on TCP `port` (any address, IPv4 or IPv6) in this network namespace. */
export function portListeners(fs: ProcFs, port: number): PortListeners {
  const inodes = new Set([...listeningInodes(fs.read("/proc/net/tcp") ?? "", port), ...listeningInodes(fs.read("/proc/net/tcp6") ?? "", port)]);
  if (inodes.size === 0) return { listening: false, holders: [], unseen: 0 };
  const found = new Set<string>();
  const pids: number[] = [];
  for (const entry of fs.list("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let holds = false;
    for (const fd of fs.list(`/proc/${entry}/fd`)) {
      const target = fs.link(`/proc/${entry}/fd/${fd}`);
      const inode = target?.startsWith("socket:[") ? target.slice(8, -1) : null;
      if (inode && inodes.has(inode)) {
        found.add(inode);
        holds = true;
      }
    }
    if (holds) pids.push(Number(entry));
  }
  return { listening: true, holders: pids.map((pid) => describeProc(fs, pid)), unseen: inodes.size - found.size };
}
