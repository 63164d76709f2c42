import { type Socket, createSocket } from "node:dgram";
import * as dnsPacket from "dns-packet";

/**
 * A tiny authoritative DNS server on loopback (UDP) for tests: it answers TXT questions from a map
 * the test edits (`set`, `remove`), NXDOMAIN for any other name, and asks nobody else. Point
 * `LEVELRAIL_DNS_RESOLVER` (the worker's `domains.resolver`) at `address`.
 */
export interface TestDns {
  /** `127.0.0.1:<port>`. */
  address: string;
  /** Replaces the TXT records of a name (each string one record). */
  set(name: string, values: string[]): void;
  remove(name: string): void;
  /** Every question asked so far (`<type> <name>`). */
  questions: string[];
  /** While true, questions get no answer at all (a resolver outage). */
  silent: boolean;
  close(): Promise<void>;
}

/** `port`: a fixed loopback port (the end-to-end stack's worker is told it before the test starts); default: a free one. */
export async function startTestDns(o: { port?: number } = {}): Promise<TestDns> {
  const records = new Map<string, string[]>();
  const socket: Socket = createSocket("udp4");
  const dns: TestDns = {
    address: "",
    questions: [],
    silent: false,
    set: (name, values) => void records.set(name.toLowerCase(), values),
    remove: (name) => void records.delete(name.toLowerCase()),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
  socket.on("message", (msg, from) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return;
    }
    const q = query.questions?.[0];
    if (!q) return;
    dns.questions.push(`${q.type} ${q.name}`);
    if (dns.silent) return;
    const values = records.get(q.name.toLowerCase());
    const answers: dnsPacket.Answer[] = q.type === "TXT" && values ? values.map((v) => ({ type: "TXT", name: q.name, ttl: 0, class: "IN", data: v })) : [];
    const reply = dnsPacket.encode({
      id: query.id,
      type: "response",
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (values ? 0 : 3), // rcode 3: NXDOMAIN
      questions: [q],
      answers,
    });
    socket.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(o.port ?? 0, "127.0.0.1", () => resolve());
  });
  dns.address = `127.0.0.1:${socket.address().port}`;
  return dns;
}
