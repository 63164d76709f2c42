import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type IpsecIo, OVERLAY_AEAD, hostIpsecIo, probeOverlayIpsec, readOverlayIpsec, writeOverlayIpsec } from "./ipsec";

const io = (o: Partial<IpsecIo>): IpsecIo => ({ readFile: () => null, exists: () => true, run: () => null, isRoot: true, ...o });

describe("whether this kernel can encrypt overlays (IPsec ESP)", () => {
  it("yes when the AEAD is instantiated already, or an ESP state with it is accepted in a namespace of its own", () => {
    expect(probeOverlayIpsec(io({ readFile: () => `name         : ${OVERLAY_AEAD}\ndriver       : rfc4106-gcm-aesni\n` })).supported).toBe(true);
    const ran: string[][] = [];
    const r = probeOverlayIpsec(io({ run: (argv) => (ran.push([...argv]), { status: 0, stderr: "" }) }));
    expect(r.supported).toBe(true);
    expect(ran[0]?.slice(0, 4)).toEqual(["unshare", "-n", "ip", "xfrm"]);
    expect(ran[0]).toContain(OVERLAY_AEAD);
  });

  it("no when the kernel refuses the AEAD or has no XFRM at all; cannot tell without root or iproute2", () => {
    const refused = probeOverlayIpsec(io({ run: () => ({ status: 2, stderr: "Error: Requested AEAD algorithm not found.\n" }) }));
    expect(refused).toEqual({ supported: false, detail: expect.stringContaining("Requested AEAD algorithm not found") });
    expect(probeOverlayIpsec(io({ isRoot: false, exists: () => false })).supported).toBe(false);
    expect(probeOverlayIpsec(io({ isRoot: false })).supported).toBeNull();
    expect(probeOverlayIpsec(io({ run: () => null })).supported).toBeNull();
  });

  it.skipIf(process.getuid?.() !== 0)("on this host, as root, gives a yes or a no (the kernel was asked)", () => {
    const r = probeOverlayIpsec(hostIpsecIo);
    if (hostIpsecIo.run(["ip", "-V"]) !== null) expect(typeof r.supported).toBe("boolean");
    expect(r.detail.length).toBeGreaterThan(0);
  });

  it("the launcher's answer is read back by the worker; anything else is none", () => {
    const dir = mkdtempSync(join(tmpdir(), "lr-ipsec-"));
    try {
      const file = join(dir, "overlay-ipsec.json");
      expect(readOverlayIpsec(file)).toBeNull();
      writeOverlayIpsec(file, { supported: false, detail: "no XFRM" });
      expect(readOverlayIpsec(file)).toEqual({ supported: false, detail: "no XFRM" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
