import { describe, expect, it } from "vitest";
import { FALLBACK_NAMESERVERS, hostNameservers } from "./upstream";

const files = (f: Record<string, string>) => (path: string) => f[path] ?? null;

describe("hostNameservers", () => {
  it("takes the host's IPv4 resolvers in order, without loopback or IPv6 ones", () => {
    const conf = "# generated\nsearch example.internal\nnameserver 10.0.0.2\nnameserver 127.0.0.1\nnameserver fd00::1\nnameserver 1.1.1.1\nnameserver 10.0.0.2\noptions ndots:1\n";
    expect(hostNameservers(files({ "/etc/resolv.conf": conf }))).toEqual(["10.0.0.2", "1.1.1.1"]);
  });

  it("follows systemd-resolved's stub to its upstream list", () => {
    const read = files({ "/etc/resolv.conf": "nameserver 127.0.0.53\noptions edns0\n", "/run/systemd/resolve/resolv.conf": "nameserver 192.168.1.1\n" });
    expect(hostNameservers(read)).toEqual(["192.168.1.1"]);
  });

  it("falls back to Docker's defaults when nothing usable is left", () => {
    expect(hostNameservers(files({}))).toEqual(FALLBACK_NAMESERVERS);
    expect(hostNameservers(files({ "/etc/resolv.conf": "nameserver 127.0.0.53\n" }))).toEqual(FALLBACK_NAMESERVERS);
  });
});
