import { describe, expect, it } from "vitest";
import { challengeName, isExemptDomain, parseBaseDomains } from "./domains";

describe("domain ownership rules", () => {
  it.each([
    ["web.localhost", [], true],
    ["a.b.localhost", [], true],
    ["notlocalhost", [], false],
    ["shop.example.com", [], false],
    ["shop.apps.example.com", ["apps.example.com"], true],
    ["apps.example.com", ["apps.example.com"], true],
    ["SHOP.Apps.Example.com", ["apps.example.com"], true],
    ["evilapps.example.com", ["apps.example.com"], false],
    ["example.com", ["apps.example.com"], false],
  ])("%s with base domains %j: exempt %s", (domain, base, exempt) => {
    expect(isExemptDomain(domain, base)).toBe(exempt);
  });

  it("parses LEVELRAIL_BASE_DOMAINS", () => {
    expect(parseBaseDomains(" Apps.Example.com, *.test.internal.,,.b.example ")).toEqual(["apps.example.com", "test.internal", "b.example"]);
    expect(parseBaseDomains(undefined)).toEqual([]);
  });

  it("names the TXT record", () => {
    expect(challengeName("Shop.Example.com")).toBe("_levelrail-challenge.shop.example.com");
  });
});
