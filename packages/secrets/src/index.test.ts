import { chownSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Keyring, keyVersion, loadMasterKey, open, rotateKeyFile, seal } from "./index";

describe("secrets", () => {
  it("generates the master key once, mode 0600, and reuses it", () => {
    const dir = mkdtempSync(join(tmpdir(), "lr-key-"));
    const a = loadMasterKey({ envKey: undefined, dataDir: dir });
    const b = loadMasterKey({ envKey: undefined, dataDir: dir });
    expect(a.equals(b)).toBe(true);
    expect(a).toHaveLength(32);
    expect(statSync(join(dir, "master.key")).mode & 0o777).toBe(0o600);
  });

  it("rejects a master key that is not 32 bytes of base64", () => {
    expect(() => loadMasterKey({ envKey: Buffer.alloc(16).toString("base64"), dataDir: "/nonexistent" })).toThrow(/32 bytes/);
  });

  it("seals with AES-256-GCM, carries the key version, and fails closed with a wrong key", () => {
    const k1 = Buffer.alloc(32, 1);
    const k2 = Buffer.alloc(32, 2);
    const sealed = seal(k1, "hello");
    expect(sealed.split(":")[1]).toBe(keyVersion(k1));
    expect(sealed).not.toContain("hello");
    expect(open([k2, k1], sealed)).toBe("hello");
    expect(() => open([k2], sealed)).toThrow(/no key with version/);
    // Same version, tampered ciphertext: authentication fails, never garbage.
    const parts = sealed.split(":");
    const ct = Buffer.from(parts[4]!, "base64");
    ct[0] = ct[0]! ^ 1;
    parts[4] = ct.toString("base64");
    expect(() => open([k1], parts.join(":"))).toThrow();
  });

  it("rotation keeps old values readable while new ones use the new key", () => {
    const dir = mkdtempSync(join(tmpdir(), "lr-rot-"));
    const ring = new Keyring({ envKey: undefined, dataDir: dir });
    const old = ring.seal("before");
    rotateKeyFile(dir);
    const rotated = new Keyring({ envKey: undefined, dataDir: dir });
    expect(rotated.currentVersion).not.toBe(ring.currentVersion);
    expect(rotated.open(old)).toBe("before");
    const fresh = rotated.seal("after");
    expect(ring.open(fresh)).toBe("after"); // the old process reloads the key files
  });

  it.skipIf(process.getuid?.() !== 0)("rotation gives the new key files the old key's owner (the installed web app's user)", () => {
    const dir = mkdtempSync(join(tmpdir(), "lr-rot-own-"));
    new Keyring({ envKey: undefined, dataDir: dir });
    chownSync(join(dir, "master.key"), 65101, 65101);
    rotateKeyFile(dir);
    for (const name of ["master.key", "master.key.previous"]) {
      const st = statSync(join(dir, name));
      expect([st.uid, st.gid, st.mode & 0o777]).toEqual([65101, 65101, 0o600]);
    }
  });
});
