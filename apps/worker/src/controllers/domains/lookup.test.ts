import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestDns, startTestDns } from "@levelrail/testkit/dns";
import { resolverServer, txtLookup } from "./lookup";

let dns: TestDns;
beforeAll(async () => {
  dns = await startTestDns();
});
afterAll(() => dns.close());

describe("txtLookup against a DNS server on loopback", () => {
  const name = "_levelrail-challenge.shop.example.com";
  const token = "levelrail-verification=0123456789abcdef";

  it("finds the token among the name's TXT records (a record split in strings is joined)", async () => {
    dns.set(name, ["v=spf1 -all", token]);
    expect(await txtLookup(dns.address).check(name, token)).toEqual({ kind: "found" });
    expect(dns.questions).toContain(`TXT ${name}`);
  });

  it("says what it found when no record holds the token, and when there is none", async () => {
    dns.set(name, ["levelrail-verification=someone-else"]);
    expect(await txtLookup(dns.address).check(name, token)).toEqual({ kind: "missing", result: `${name} has 1 TXT record, none holds this organization's token` });
    dns.remove(name);
    expect(await txtLookup(dns.address).check(name, token)).toEqual({ kind: "missing", result: `no TXT record at ${name}` });
  });

  it("a resolver that does not answer is an error, not a missing record", async () => {
    dns.set(name, [token]);
    dns.silent = true;
    try {
      const r = await txtLookup(dns.address, 200).check(name, token);
      expect(r).toMatchObject({ kind: "error", result: expect.stringContaining("ETIMEOUT") });
    } finally {
      dns.silent = false;
    }
  });

  it("takes host:port, [v6]:port and a bare v6 address", () => {
    expect(resolverServer("127.0.0.1:5353")).toBe("127.0.0.1:5353");
    expect(resolverServer("[::1]:5353")).toBe("[::1]:5353");
    expect(resolverServer("::1")).toBe("[::1]");
  });
});
