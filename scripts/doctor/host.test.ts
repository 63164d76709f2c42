// The decisions of the host checks (engine, live-restore, clock, disk, ports) on injected probes.
import { describe, expect, it } from "vitest";
import { DISK, dataDiskCheck, diskVerdict, engineDiskCheck } from "./disk";
import { type EngineInfo, type EngineProbe, clockCheck, engineCheck, liveRestoreCheck, parseEngineTime } from "./engine";
import { type OurCaddy, portCheck, portVerdict, procPortProbe } from "./ports";
import { type ProcFs, listeningInodes, portListeners } from "./procfs";
import { formatJson, formatLines, runCheck } from "./result";

const T0 = Date.parse("2026-12-01T12:00:00.000Z");
const info = (over: Partial<EngineInfo> = {}): EngineInfo => ({
  serverVersion: "20.10.24",
  apiVersion: "1.41",
  liveRestore: true,
  rootDir: "/var/lib/docker",
  systemTime: "2026-12-01T12:00:00.050123456Z",
  sentAt: T0,
  receivedAt: T0 + 100,
  ...over,
});
const engine = (i: EngineInfo | Error): EngineProbe => ({ where: "unix:///var/run/docker.sock", info: async () => (i instanceof Error ? Promise.reject(i) : i) });
const refused = Object.assign(new Error("connect ECONNREFUSED /var/run/docker.sock"), { code: "ECONNREFUSED" });

describe("engine", () => {
  it("names the version when it answers, and says how to start it when not", async () => {
    expect(await engineCheck(engine(info()))).toMatchObject({ status: "ok", message: "Docker 20.10.24 (API 1.41) answers at unix:///var/run/docker.sock" });
    const down = await engineCheck(engine(refused));
    expect(down.status).toBe("fail");
    expect(down.message).toContain("ECONNREFUSED");
    expect(down.message).toContain("systemctl start docker");
  });

  it("warns when live-restore is off, saying where to turn it on and how to reload", async () => {
    expect((await liveRestoreCheck(engine(info()))).status).toBe("ok");
    const off = await liveRestoreCheck(engine(info({ liveRestore: false })));
    expect(off.status).toBe("warn");
    expect(off.message).toContain('"live-restore": true');
    expect(off.message).toContain("/etc/docker/daemon.json");
    expect(off.message).toContain("systemctl reload docker");
    expect(off.message).toContain("SIGHUP");
    expect(await liveRestoreCheck(engine(refused))).toMatchObject({ status: "warn", message: "not checked: the Docker engine does not answer" });
  });

  it("on a swarm node, never asks for live-restore (dockerd refuses it in swarm mode) and says what a restart costs", async () => {
    const swarm = await liveRestoreCheck(engine(info({ liveRestore: false, swarm: true })));
    expect(swarm).toMatchObject({ status: "warn", message: expect.stringContaining("not available in swarm mode") });
    expect(swarm.message).not.toContain("daemon.json");
  });
});

describe("clock", () => {
  it("reads the engine's nanosecond time", () => {
    expect(parseEngineTime("2026-12-01T12:00:00.050123456Z")).toBe(T0 + 50);
    expect(parseEngineTime("2026-12-01T13:00:00.5+01:00")).toBe(T0 + 500);
    expect(parseEngineTime("2026-12-01T12:00:00Z")).toBe(T0);
    expect(parseEngineTime("yesterday")).toBeNaN();
  });

  it("compares with the middle of the request: ok within 2 s, warn beyond, fail beyond 30 s", async () => {
    // Asked at T0, answered at T0 + 100: the engine's time is compared with T0 + 50.
    const at = (ms: number) => new Date(T0 + 50 + ms).toISOString();
    expect(await clockCheck(engine(info({ systemTime: at(0) })))).toMatchObject({ status: "ok", detail: { skewMs: 0 } });
    expect((await clockCheck(engine(info({ systemTime: at(2000) })))).status).toBe("ok");
    const ahead = await clockCheck(engine(info({ systemTime: at(-2500) })));
    expect(ahead.status).toBe("warn");
    expect(ahead.message).toContain("2.5 s ahead of the engine's");
    const behind = await clockCheck(engine(info({ systemTime: at(45_000) })));
    expect(behind.status).toBe("fail");
    expect(behind.message).toContain("45 s behind");
    expect(behind.message).toContain("NTP");
  });
});

describe("disk", () => {
  const GiB = 1024 ** 3;
  it("warns under 10 % or 5 GiB free and fails under 2 % or 1 GiB", () => {
    const v = (free: number, total: number) => diskVerdict("disk-data", "the data dir", "/d", { freeBytes: free, totalBytes: total }).status;
    expect(v(50 * GiB, 100 * GiB)).toBe("ok");
    expect(v(9 * GiB, 100 * GiB)).toBe("warn"); // 9 %
    expect(v(4 * GiB, 20 * GiB)).toBe("warn"); // 20 % but under 5 GiB
    expect(v(1.5 * GiB, 100 * GiB)).toBe("fail"); // 1.5 %
    expect(v(0.9 * GiB, 2 * GiB)).toBe("fail"); // under 1 GiB
    expect(v(DISK.warnBytes, 10 * GiB)).toBe("ok"); // exactly at the line
  });

  it("reads the engine's root when the engine is local, and only then", async () => {
    const seen: string[] = [];
    const stat = (p: string) => (seen.push(p), { freeBytes: 80 * GiB, totalBytes: 100 * GiB });
    expect(await engineDiskCheck(engine(info({ rootDir: "/srv/docker" })), true, stat)).toMatchObject({ status: "ok", detail: { path: "/srv/docker" } });
    expect((await engineDiskCheck(engine(info()), false, stat)).message).toContain("runs on another host");
    expect((await engineDiskCheck(engine(refused), true, stat)).status).toBe("warn");
    expect(await dataDiskCheck("/data", stat)).toMatchObject({ status: "ok", name: "disk-data" });
    expect(seen).toEqual(["/srv/docker", "/data"]);
  });
});

/** A /proc with a few processes: pid → {comm, ppid, socket inodes}. */
function fakeProc(procs: Record<number, { comm: string; ppid: number; sockets?: string[]; cmdline?: string }>, tcp: string, tcp6 = ""): ProcFs {
  const files = new Map<string, string>([
    ["/proc/net/tcp", tcp],
    ["/proc/net/tcp6", tcp6],
  ]);
  for (const [pid, p] of Object.entries(procs)) {
    files.set(`/proc/${pid}/comm`, `${p.comm}\n`);
    files.set(`/proc/${pid}/stat`, `${pid} (${p.comm}) S ${p.ppid} 1 1 0 -1`);
    files.set(`/proc/${pid}/cmdline`, (p.cmdline ?? p.comm).split(" ").join("\0") + "\0");
  }
  return {
    read: (path) => files.get(path) ?? null,
    list: (path) => {
      if (path === "/proc") return [...Object.keys(procs), "self", "net"];
      const m = /^\/proc\/(\d+)\/fd$/.exec(path);
      return m ? ["0", "1", ...(procs[Number(m[1])]?.sockets ?? []).map((_, i) => String(i + 3))] : [];
    },
    link: (path) => {
      const m = /^\/proc\/(\d+)\/fd\/(\d+)$/.exec(path);
      if (!m) return null;
      const i = Number(m[2]) - 3;
      return i < 0 ? "/dev/null" : `socket:[${procs[Number(m[1])]?.sockets?.[i]}]`;
    },
  };
}

const HEADER = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";
// 127.0.0.1:80 listening (inode 111), 0.0.0.0:443 listening (222), and a connection from :80 (not listening).
const TCP =
  HEADER +
  "   0: 0100007F:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1 0000000000000000 100 0 0 10 0\n" +
  "   1: 00000000:01BB 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 222 1 0000000000000000 100 0 0 10 0\n" +
  "   2: 0100007F:0050 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 333 1 0000000000000000 20 4 30 10 -1\n";
const TCP6 = HEADER + "   0: 00000000000000000000000000000000:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 444 1 0000000000000000 100 0 0 10 0\n";

describe("ports", () => {
  it("reads listening sockets of a port from /proc/net/tcp{,6}", () => {
    expect(listeningInodes(TCP, 80)).toEqual(["111"]);
    expect(listeningInodes(TCP, 443)).toEqual(["222"]);
    expect(listeningInodes(TCP6, 80)).toEqual(["444"]);
    expect(listeningInodes(TCP, 8080)).toEqual([]);
  });

  const caddy = (pids: number[]): OurCaddy => ({ pids: new Map(pids.map((p) => [p, "container lr-caddy"])) });
  const spec = { name: "port-http", port: 80, variable: "LEVELRAIL_INGRESS_HTTP_PORT" };

  it("is ok when our Caddy (or a process under it) holds the port", async () => {
    const fs = fakeProc({ 1: { comm: "systemd", ppid: 0 }, 500: { comm: "containerd-shim", ppid: 1 }, 501: { comm: "caddy", ppid: 500, sockets: ["111", "444"] } }, TCP, TCP6);
    const r = await portCheck(spec, procPortProbe(fs, async () => caddy([501])));
    expect(r).toMatchObject({ status: "ok", message: "held by our Caddy: caddy (pid 501, container lr-caddy)" });
    // The container's State.Pid is its shim's child; a holder forked under it is ours too.
    expect((await portCheck(spec, procPortProbe(fs, async () => caddy([500])))).status).toBe("ok");
  });

  it("fails naming another program, with its pid, and says how to move", async () => {
    const fs = fakeProc({ 1: { comm: "systemd", ppid: 0 }, 1234: { comm: "nginx", ppid: 1, sockets: ["111"] }, 77: { comm: "caddy", ppid: 1 } }, TCP);
    const r = await portCheck(spec, procPortProbe(fs, async () => caddy([77])));
    expect(r.status).toBe("fail");
    expect(r.message).toMatch(/^port 80 is held by nginx \(pid 1234\), not by Levelrail's Caddy: stop it, or set LEVELRAIL_INGRESS_HTTP_PORT/);
    expect(r.detail).toEqual({ port: 80, holders: [{ pid: 1234, name: "nginx", cmdline: "nginx", ours: false }] });
  });

  it("points at the OS's caddy.service when another Caddy holds it", async () => {
    const fs = fakeProc({ 1: { comm: "systemd", ppid: 0 }, 900: { comm: "caddy", ppid: 1, sockets: ["222"], cmdline: "/usr/bin/caddy run --environ --config /etc/caddy/Caddyfile" } }, TCP);
    const r = await portCheck({ ...spec, name: "port-https", port: 443 }, procPortProbe(fs, async () => caddy([])));
    expect(r.status).toBe("fail");
    expect(r.message).toContain("caddy (pid 900)");
    expect(r.message).toContain("systemctl disable --now caddy");
  });

  it("warns when nothing listens, and when the holder cannot be seen", async () => {
    const none = fakeProc({ 1: { comm: "systemd", ppid: 0 } }, HEADER);
    expect((await portCheck(spec, procPortProbe(none, async () => caddy([])))).message).toBe("nothing listens on port 80: Caddy is not running: `npm start` starts it");
    expect((await portCheck(spec, procPortProbe(none, async () => caddy([42])))).message).toContain("our Caddy (pid 42) runs but does not serve it yet");
    const hidden = fakeProc({ 1: { comm: "systemd", ppid: 0 } }, TCP);
    expect(portListeners(hidden, 80)).toEqual({ listening: true, holders: [], unseen: 1 });
    expect(portVerdict(spec, portListeners(hidden, 80), () => null, caddy([])).message).toContain("run doctor as root");
  });
});

describe("running checks", () => {
  it("turns a check that hangs past its deadline, or throws, into a fail", async () => {
    const hangs = await runCheck({ name: "caddy-admin", run: () => new Promise(() => {}) }, 50);
    expect(hangs).toMatchObject({ name: "caddy-admin", status: "fail", message: "did not finish within 0.05 s: what it asks does not answer" });
    const throws = await runCheck({ name: "x", run: async () => Promise.reject(new Error("boom\nstack")) }, 50);
    expect(throws).toMatchObject({ status: "fail", message: "the check itself failed: boom" });
  });

  it("prints one line per check, and JSON whose ok is false only when one fails", () => {
    const results = [
      { name: "engine", status: "ok" as const, message: "fine", detail: { version: "20.10" } },
      { name: "live-restore", status: "warn" as const, message: "off" },
    ];
    expect(formatLines(results)).toEqual(["ok   engine        fine", "warn live-restore  off"]);
    expect(JSON.parse(formatJson(results))).toEqual({
      checks: [
        { name: "engine", status: "ok", message: "fine", version: "20.10" },
        { name: "live-restore", status: "warn", message: "off" },
      ],
      ok: true,
    });
    expect(JSON.parse(formatJson([...results, { name: "postgres", status: "fail", message: "down" }])).ok).toBe(false);
  });
});
