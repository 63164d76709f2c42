import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

// Whether this host's kernel can carry an encrypted overlay (`docker network create --opt
// encrypted`): the engine programs IPsec ESP between the nodes with the AEAD `rfc4106(gcm(aes))`
// through the kernel's XFRM. A kernel without it takes the network's create and then fails every
// task that joins it, so the worker asks for encryption only where this says `supported: true`.

/** The AEAD Docker's overlay driver programs for ESP. */
export const OVERLAY_AEAD = "rfc4106(gcm(aes))";

/** Beside the data plane's state (`<data dir>/dataplane/`): what the launcher found on the manager. */
export const OVERLAY_IPSEC_FILE = "overlay-ipsec.json";

export interface OverlayIpsec {
  /** true: encrypted overlays work here; false: they do not; null: could not tell. */
  supported: boolean | null;
  /** Why, in a few words (for doctor and the logs). */
  detail: string;
}

/** What the probe reads and runs (the host's, unless a test says otherwise). */
export interface IpsecIo {
  readFile(path: string): string | null;
  exists(path: string): boolean;
  /** Runs argv; null when the program is missing. */
  run(argv: readonly string[]): { status: number; stderr: string } | null;
  isRoot: boolean;
}

export const hostIpsecIo: IpsecIo = {
  readFile: (path) => {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return null;
    }
  },
  exists: existsSync,
  run: (argv) => {
    const r = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8", timeout: 10_000 });
    if (r.error) return null;
    return { status: r.status ?? 1, stderr: r.stderr ?? "" };
  },
  isRoot: process.getuid?.() === 0,
};

/**
 * Asks the kernel, in this order: the AEAD already instantiated (`/proc/crypto`) is a yes; else one
 * ESP state with it, added in a network namespace of its own that vanishes with the command
 * (`unshare -n ip xfrm state add …`: root, iproute2), says yes or no; else a kernel with no XFRM
 * at all (no `net.core.xfrm_*` sysctl) is a no; anything else cannot be told.
 */
export function probeOverlayIpsec(io: IpsecIo = hostIpsecIo): OverlayIpsec {
  const crypto = io.readFile("/proc/crypto") ?? "";
  if (crypto.split("\n").some((l) => /^name\s*:\s*/.test(l) && l.replace(/^name\s*:\s*/, "").trim() === OVERLAY_AEAD)) {
    return { supported: true, detail: `the kernel has IPsec ESP with ${OVERLAY_AEAD}` };
  }
  if (io.isRoot) {
    const key = `0x${"0123456789abcdef".repeat(2)}01020304`; // 128-bit key and 32-bit salt: a throwaway state in a throwaway namespace
    const r = io.run(["unshare", "-n", "ip", "xfrm", "state", "add", "src", "192.0.2.1", "dst", "192.0.2.2", "proto", "esp", "spi", "0x100", "reqid", "1", "mode", "transport", "aead", OVERLAY_AEAD, key, "128"]);
    if (r && r.status === 0) return { supported: true, detail: `the kernel has IPsec ESP with ${OVERLAY_AEAD}` };
    if (r && /not found|not supported|protocol not supported|no such file/i.test(r.stderr)) {
      return { supported: false, detail: `the kernel has no IPsec ESP with ${OVERLAY_AEAD} (${r.stderr.trim().split("\n")[0]}): load the esp4 and xfrm_user modules, or use a kernel built with them` };
    }
  }
  if (!io.exists("/proc/sys/net/core/xfrm_acq_expires")) {
    return { supported: false, detail: "the kernel has no IPsec (XFRM): load the xfrm_user and esp4 modules, or use a kernel built with them" };
  }
  return { supported: null, detail: `could not tell whether the kernel has IPsec ESP with ${OVERLAY_AEAD} (needs root and iproute2's \`ip\` to try)` };
}

/** Writes the probe's answer where the worker reads it (whole, through a rename). */
export function writeOverlayIpsec(file: string, answer: OverlayIpsec): void {
  writeFileSync(`${file}.${process.pid}.tmp`, `${JSON.stringify(answer)}\n`);
  renameSync(`${file}.${process.pid}.tmp`, file);
}

/** The launcher's answer; null when it wrote none (or not one this reads). */
export function readOverlayIpsec(file: string): OverlayIpsec | null {
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as Partial<OverlayIpsec>;
    if ((v.supported === true || v.supported === false || v.supported === null) && typeof v.detail === "string") return { supported: v.supported, detail: v.detail };
  } catch {
    // none
  }
  return null;
}
