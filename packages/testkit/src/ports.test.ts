import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePortPair } from "./registry";

const listen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });

describe("freePortPair", () => {
  it("gives two free ports in a row, below the kernel's range for outgoing connections (and above the suites' fixed ports)", async () => {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    for (let i = 0; i < 5; i++) {
      const p = await freePortPair();
      expect(await listen(p)).toBe(true);
      expect(await listen(p + 1)).toBe(true);
      if (low > 21_000) {
        expect(p).toBeGreaterThanOrEqual(20_000);
        expect(p + 1).toBeLessThan(low);
      }
    }
  });
});
