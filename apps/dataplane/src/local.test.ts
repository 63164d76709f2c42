import { describe, expect, it } from "vitest";
import { isDirect, isLoopback } from "./local";

describe("who may have the data plane's health and TLS `ask`", () => {
  it.each([
    ["127.0.0.1", {}, true],
    ["::ffff:127.0.0.1", {}, true],
    ["127.3.2.1", {}, true],
    ["::1", {}, true],
    ["10.201.0.5", {}, false],
    ["::ffff:10.201.0.5", {}, false],
    [undefined, {}, false],
    // Forwarded by ingress (Caddy on the host network dials from loopback): never, whatever the Host.
    ["127.0.0.1", { host: "localhost", "x-levelrail-ingress": "1" }, false],
    ["127.0.0.1", { host: "localhost", "x-forwarded-for": "203.0.113.9" }, false],
    ["127.0.0.1", { "x-forwarded-host": "localhost" }, false],
    ["127.0.0.1", { forwarded: "for=203.0.113.9" }, false],
    ["127.0.0.1", { via: "1.1 caddy" }, false],
    // The Host header proves nothing either way.
    ["127.0.0.1", { host: "shop.example.com" }, true],
    ["10.201.0.5", { host: "localhost" }, false],
  ] as const)("peer %s with %j: %s", (peer, headers, expected) => {
    expect(isDirect(peer, headers)).toBe(expected);
  });

  it("loopback is 127.0.0.0/8 and ::1 only", () => {
    expect(isLoopback("127.0.0.1.5")).toBe(false);
    expect(isLoopback("128.0.0.1")).toBe(false);
    expect(isLoopback("::2")).toBe(false);
  });
});
