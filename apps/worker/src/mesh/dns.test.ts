import { createSocket } from "node:dgram";
import * as dnsPacket from "dns-packet";
import { afterEach, describe, expect, it } from "vitest";
import { MeshDns } from "./dns";

const query = (name: string, type: "A" | "AAAA" = "A") => dnsPacket.encode({ type: "query", id: 7, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type, name }] });
const rcode = (p: dnsPacket.Packet) => (p.flags ?? 0) & 0xf;

let mesh: MeshDns | null = null;
afterEach(() => mesh?.close());

describe("mesh DNS", () => {
  it("answers the active container of a service, authoritative, with a short TTL", () => {
    mesh = new MeshDns({ zone: "lr.internal" });
    mesh.setActive("web.shop.lr.internal", "10.201.0.5");
    const r = dnsPacket.decode(mesh.answer(query("web.shop.lr.internal"))!);
    expect(rcode(r)).toBe(0);
    expect(r.answers).toEqual([expect.objectContaining({ type: "A", name: "web.shop.lr.internal", data: "10.201.0.5", ttl: 1 })]);
    mesh.setActive("web.shop.lr.internal", "10.201.0.9"); // the next deploy
    expect(dnsPacket.decode(mesh.answer(query("WEB.shop.lr.internal."))!).answers?.[0]).toMatchObject({ data: "10.201.0.9" });
  });

  it("says NXDOMAIN for unknown names in its zone and refuses names outside it", () => {
    mesh = new MeshDns({ zone: "lr.internal" });
    expect(rcode(dnsPacket.decode(mesh.answer(query("api.shop.lr.internal"))!))).toBe(3);
    expect(rcode(dnsPacket.decode(mesh.answer(query("example.com"))!))).toBe(5);
    expect(mesh.answer(Buffer.from("garbage"))).toBeNull();
  });

  it("a gateway socket answers only names of its own app", () => {
    mesh = new MeshDns({ zone: "lr.internal" });
    mesh.setActive("db.billing.lr.internal", "10.201.0.70");
    expect(rcode(dnsPacket.decode(mesh.answer(query("db.billing.lr.internal"), "shop.lr.internal")!))).toBe(3);
    expect(rcode(dnsPacket.decode(mesh.answer(query("db.billing.lr.internal"), "billing.lr.internal")!))).toBe(0);
  });

  it("serves over UDP", async () => {
    mesh = new MeshDns({ zone: "lr.internal" });
    mesh.setActive("web.shop.lr.internal", "10.201.0.5");
    await mesh.listen("127.0.0.1", 25353);
    const client = createSocket("udp4");
    const reply = await new Promise<Buffer>((resolve) => {
      client.once("message", resolve);
      client.send(query("web.shop.lr.internal"), 25353, "127.0.0.1");
    });
    client.close();
    expect(dnsPacket.decode(reply).answers?.[0]).toMatchObject({ data: "10.201.0.5" });
  });
});
