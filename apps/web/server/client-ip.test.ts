import { describe, expect, it } from "vitest";
import { clientIp, normalize, trustList } from "./client-ip.mjs";

describe("clientIp", () => {
  const none = trustList([]);
  const proxy = trustList(["10.0.0.1", "192.168.0.0/16", "::1"]);

  it("without trusted proxies, X-Forwarded-For is ignored: rotating it changes nothing", () => {
    expect(clientIp("203.0.113.5", "1.2.3.4", none)).toBe("203.0.113.5");
    expect(clientIp("203.0.113.5", "5.6.7.8", none)).toBe("203.0.113.5");
    expect(clientIp("::ffff:127.0.0.1", "9.9.9.9", none)).toBe("127.0.0.1");
  });

  it("from a trusted proxy, the first untrusted hop from the right is the client", () => {
    expect(clientIp("10.0.0.1", "198.51.100.7", proxy)).toBe("198.51.100.7");
    // A client that prepends its own value does not get it believed: the proxy appended the real one.
    expect(clientIp("10.0.0.1", "1.2.3.4, 198.51.100.7", proxy)).toBe("198.51.100.7");
    expect(clientIp("10.0.0.1", "198.51.100.7, 192.168.4.4", proxy)).toBe("198.51.100.7");
  });

  it("an untrusted peer's header is never read; garbage in a trusted chain falls back to the peer", () => {
    expect(clientIp("198.51.100.9", "10.0.0.1", proxy)).toBe("198.51.100.9");
    expect(clientIp("10.0.0.1", "not-an-ip", proxy)).toBe("10.0.0.1");
    expect(clientIp("::1", "", proxy)).toBe("::1");
  });

  it("normalizes IPv4-mapped addresses and refuses a bad trust entry", () => {
    expect(normalize("::ffff:10.0.0.1")).toBe("10.0.0.1");
    expect(() => trustList(["proxy.local"])).toThrow(/LEVELRAIL_TRUSTED_PROXIES/);
  });
});
