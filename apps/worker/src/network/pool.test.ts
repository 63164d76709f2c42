import { describe, expect, it } from "vitest";
import { APP_SUBNET_BITS, DEFAULT_NETWORK_POOL, capacity, nextSubnet, parseCidr } from "./pool";

describe("subnet pool", () => {
  it("the default pool fits more than 1,000 apps", () => {
    expect(capacity({ pool: DEFAULT_NETWORK_POOL, bits: APP_SUBNET_BITS })).toBeGreaterThanOrEqual(1000);
  });

  it("hands out the first free subnet, skipping any that overlaps one in use", () => {
    const p = { pool: "10.201.0.0/16", bits: 26 };
    expect(nextSubnet(p, [])).toEqual({ subnet: "10.201.0.0/26", gateway: "10.201.0.1" });
    expect(nextSubnet(p, ["10.201.0.0/26"])).toEqual({ subnet: "10.201.0.64/26", gateway: "10.201.0.65" });
    // A wider network in use (someone else's /24) blocks every block inside it.
    expect(nextSubnet(p, ["10.201.0.0/24", "172.17.0.0/16", "fd00::/64"])).toEqual({ subnet: "10.201.1.0/26", gateway: "10.201.1.1" });
  });

  it("says when the pool is full, and rejects nonsense", () => {
    const p = { pool: "10.9.0.0/25", bits: 26 };
    expect(nextSubnet(p, ["10.9.0.0/26", "10.9.0.64/26"])).toBeNull();
    expect(() => parseCidr("10.0.0.0")).toThrow(/CIDR/);
    expect(() => parseCidr("300.1.1.1/16")).toThrow(/IPv4/);
  });
});
