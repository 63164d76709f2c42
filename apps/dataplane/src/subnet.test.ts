import { describe, expect, it } from "vitest";
import { gatewaySubnet, inSubnet, listenAddress } from "./subnet";

describe("inSubnet", () => {
  it.each([
    ["10.201.0.5", "10.201.0.0/26", true],
    ["10.201.0.63", "10.201.0.0/26", true],
    ["10.201.0.64", "10.201.0.0/26", false],
    ["10.201.1.2", "10.201.0.0/26", false],
    ["::ffff:10.201.0.2", "10.201.0.0/26", true],
    ["127.0.0.1", "10.201.0.0/26", false],
    ["1.2.3.4", "0.0.0.0/0", true],
    ["10.201.0.1", "10.201.0.1/32", true],
    ["fe80::1", "10.201.0.0/26", false],
    ["10.201.0.300", "10.201.0.0/26", false],
    ["10.201.0.2", "10.201.0.0/33", false],
    ["10.201.0.2", "garbage", false],
  ])("%s in %s: %s", (address, cidr, expected) => {
    expect(inSubnet(address, cidr)).toBe(expected);
  });

  it("a gateway's subnet is the one it is in", () => {
    expect(gatewaySubnet("10.201.1.1", ["fd00::/64", "10.201.1.0/26"])).toBe("10.201.1.0/26");
    expect(gatewaySubnet("10.201.1.1", ["10.201.0.0/26"])).toBeNull();
  });
});

describe("listenAddress", () => {
  it("one engine: the bridge's gateway, an address of this host (also before the host shows it)", () => {
    expect(listenAddress("10.201.0.1", "10.201.0.0/26", ["127.0.0.1", "10.201.0.1"])).toBe("10.201.0.1");
    expect(listenAddress("10.201.0.1", "10.201.0.0/26", ["127.0.0.1"])).toBe("10.201.0.1");
  });
  it("a swarm node's edge namespace: its own address on the app's overlay, not the overlay's gateway", () => {
    expect(listenAddress("10.232.0.1", "10.232.0.0/26", ["127.0.0.1", "172.30.0.2", "10.232.0.5", "10.232.0.70"])).toBe("10.232.0.5");
  });
});
