import { type Socket, createSocket } from "node:dgram";
import * as dnsPacket from "dns-packet";

/** What the application controller tells the mesh: which container of a service is active. */
export interface ActiveRegistry {
  setActive(name: string, address: string | null): void;
}

export interface MeshDnsOptions {
  /** e.g. `levelrail.internal`: names under it are ours; anything else is refused so the next server answers. */
  zone: string;
  /** TTL of answers, in seconds (small: the active container changes at every deploy). */
  ttlSeconds?: number;
  log?: (line: string) => void;
}

/**
 * The mesh DNS server: answers `<service>.<app>.<zone>` with the address of
 * the service's active container, and nothing else. A socket listens on
 * loopback for Caddy and on each app network's gateway for its containers;
 * a gateway socket answers only names of its own app.
 */
export class MeshDns implements ActiveRegistry {
  private readonly records = new Map<string, string>();
  private readonly sockets = new Map<string, Socket>();
  private readonly zone: string;

  constructor(private readonly o: MeshDnsOptions) {
    this.zone = o.zone.toLowerCase();
  }

  setActive(name: string, address: string | null): void {
    if (address) this.records.set(name.toLowerCase(), address);
    else this.records.delete(name.toLowerCase());
  }

  lookup(name: string): string | undefined {
    return this.records.get(name.toLowerCase().replace(/\.$/, ""));
  }

  /** Listens on host:port unless already; `appSuffix` limits answers to one app (`<app>.<zone>`). */
  async listen(host: string, port: number, appSuffix?: string): Promise<void> {
    const key = `${host}:${port}`;
    if (this.sockets.has(key)) return;
    const socket = createSocket(host.includes(":") ? "udp6" : "udp4");
    socket.on("message", (msg, rinfo) => {
      const reply = this.answer(msg, appSuffix);
      if (reply) socket.send(reply, rinfo.port, rinfo.address);
    });
    socket.on("error", (err) => this.o.log?.(`[mesh-dns] ${key}: ${err.message}`));
    this.sockets.set(key, socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("error", (err) => {
        this.sockets.delete(key);
        reject(err);
      });
      socket.bind(port, host, () => resolve());
    });
  }

  /** Stops listening on host:port (an app network that is gone). */
  unlisten(host: string, port: number): void {
    const key = `${host}:${port}`;
    this.sockets.get(key)?.close();
    this.sockets.delete(key);
  }

  get listening(): string[] {
    return [...this.sockets.keys()];
  }

  close(): void {
    for (const s of this.sockets.values()) s.close();
    this.sockets.clear();
  }

  /** Builds the response to one query packet; null for garbage. */
  answer(msg: Buffer, appSuffix?: string): Buffer | null {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return null;
    }
    const q = query.questions?.[0];
    if (!q) return null;
    const name = q.name.toLowerCase().replace(/\.$/, "");
    const base = { id: query.id, type: "response" as const, questions: query.questions };
    const inZone = name === this.zone || name.endsWith(`.${this.zone}`);
    // Outside our zone: refuse, so Docker's resolver asks the next server.
    if (!inZone) return dnsPacket.encode({ ...base, flags: dnsPacket.RECURSION_DESIRED | 5 /* REFUSED */ });
    const allowed = !appSuffix || name.endsWith(`.${appSuffix}`);
    const address = allowed ? this.records.get(name) : undefined;
    const flags = dnsPacket.AUTHORITATIVE_ANSWER | (address === undefined ? 3 /* NXDOMAIN */ : 0);
    const answers: dnsPacket.Answer[] =
      address !== undefined && q.type === "A"
        ? [{ type: "A", name: q.name, ttl: this.o.ttlSeconds ?? 1, class: "IN", data: address }]
        : [];
    return dnsPacket.encode({ ...base, flags, answers });
  }
}
