import { describe, expect, it } from "vitest";
import { type Lookup, addressProblem, checkedLookup, literalHostProblem, resolveTarget } from "./address";

const answers =
  (table: Record<string, string[]>): Lookup =>
  async (host) => {
    const a = table[host];
    if (!a) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    return a.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

describe("addressProblem", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["100.64.0.1", "shared (carrier-grade NAT)"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fd12:3456::1", "private (unique local)"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["64:ff9b::7f00:1", "IPv4-embedding (NAT64)"],
    // Issue 22 item 14: the IPv4-compatible form of loopback and local-use NAT64 (RFC 8215).
    ["::127.0.0.1", "IPv4-compatible"],
    ["::7f00:1", "IPv4-compatible"],
    ["::a9fe:a9fe", "IPv4-compatible"],
    ["64:ff9b:1::7f00:1", "IPv4-embedding (local-use NAT64)"],
    ["64:ff9b:1:ffff::a9fe:a9fe", "IPv4-embedding (local-use NAT64)"],
    ["::ffff:8.8.8.8", "IPv4-mapped"],
    ["2001:0:4136:e378::1", "IPv4-embedding (Teredo)"],
    ["2001:db8::1", "reserved (documentation)"],
    ["100::1", "reserved (discard)"],
    // Outside global unicast (2000::/3), listed or not.
    ["4000::1", "reserved (not global unicast)"],
    ["1::1", "reserved (not global unicast)"],
  ])("%s is %s", (ip, what) => expect(addressProblem(ip)).toBe(what));

  it.each(["93.184.216.34", "172.32.0.1", "8.8.8.8", "2606:4700::1111", "192.169.0.1"])("%s is public", (ip) => expect(addressProblem(ip)).toBeNull());
});

describe("literalHostProblem (as written, no DNS)", () => {
  it("refuses loopback names and addresses, private and link-local addresses and the panel's own host", () => {
    expect(literalHostProblem("localhost", undefined)).toContain("loopback");
    expect(literalHostProblem("api.localhost", undefined)).toContain("loopback");
    expect(literalHostProblem("[::1]", undefined)).toContain("loopback");
    expect(literalHostProblem("10.0.0.5", undefined)).toContain("private");
    expect(literalHostProblem("169.254.169.254", undefined)).toContain("link-local");
    expect(literalHostProblem("Panel.Example.com.", "panel.example.com")).toContain("panel's own host");
  });
  it("leaves public addresses and names to the delivery's check", () => {
    expect(literalHostProblem("hooks.example.com", "panel.example.com")).toBeNull();
    expect(literalHostProblem("93.184.216.34", undefined)).toBeNull();
  });
});

describe("resolveTarget (at delivery)", () => {
  const lookup = answers({
    "hooks.example.com": ["93.184.216.34"],
    "sneaky.example.com": ["93.184.216.34", "10.0.0.7"],
    "inside.example.com": ["127.0.0.1"],
    "panel.example.com": ["93.184.216.40"],
    "alias.example.com": ["93.184.216.40"],
  });
  it("answers the one address to connect to", async () => {
    expect(await resolveTarget("hooks.example.com", { allowPrivate: false, lookup })).toEqual({ address: "93.184.216.34", family: 4 });
  });
  it("refuses a name any of whose addresses is private, naming it", async () => {
    await expect(resolveTarget("sneaky.example.com", { allowPrivate: false, lookup })).rejects.toThrow("resolves to 10.0.0.7, a private address");
    await expect(resolveTarget("inside.example.com", { allowPrivate: false, lookup })).rejects.toThrow("loopback");
  });
  it("refuses a name that resolves to the panel's own address", async () => {
    await expect(resolveTarget("alias.example.com", { allowPrivate: false, panelHost: "panel.example.com", lookup })).rejects.toThrow("panel's own address");
  });
  it("refuses a literal private address without looking anything up", async () => {
    const never: Lookup = () => Promise.reject(new Error("looked up"));
    await expect(resolveTarget("127.0.0.1", { allowPrivate: false, lookup: never })).rejects.toThrow("loopback address; refused");
  });
  it("allows anything on a channel that allows private targets", async () => {
    expect(await resolveTarget("inside.example.com", { allowPrivate: true, lookup })).toEqual({ address: "127.0.0.1", family: 4 });
    expect(await resolveTarget("127.0.0.1", { allowPrivate: true, lookup })).toEqual({ address: "127.0.0.1", family: 4 });
  });
  it("names a host that does not resolve", async () => {
    await expect(resolveTarget("nowhere.example.com", { allowPrivate: false, lookup })).rejects.toThrow("does not resolve (ENOTFOUND)");
  });
});

describe("checkedLookup (for agents: the S3 client)", () => {
  const lookup = answers({ "s3.example.com": ["93.184.216.34"], "inside.example.com": ["169.254.169.254"] });
  const ask = (host: string, allowPrivate: boolean) =>
    new Promise<{ err: (Error & { code?: string }) | null; address: string }>((resolve) =>
      checkedLookup({ allowPrivate, lookup })(host, {}, (err, address) => resolve({ err, address: typeof address === "string" ? address : "" })),
    );
  it("answers the checked address, or refuses a name that resolves to a private one", async () => {
    expect(await ask("s3.example.com", false)).toEqual({ err: null, address: "93.184.216.34" });
    const refused = await ask("inside.example.com", false);
    expect(refused.err?.message).toContain("link-local address; refused");
    expect(refused.err?.code).toBe("ETARGETREFUSED");
    expect(await ask("inside.example.com", true)).toEqual({ err: null, address: "169.254.169.254" });
  });
});
