import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateDeployKey } from "./deploy-key";

const dir = mkdtempSync(join(tmpdir(), "lr-deploy-key-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("generateDeployKey", () => {
  it("writes a private key OpenSSH reads back to the same public key", () => {
    for (let i = 0; i < 5; i++) {
      const key = generateDeployKey(`levelrail-deploy${i}`);
      expect(key.publicKey).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]{43} levelrail-deploy\d$/);
      expect(key.privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n[\s\S]+\n-----END OPENSSH PRIVATE KEY-----\n$/);
      const file = join(dir, `id_${i}`);
      writeFileSync(file, key.privateKey, { mode: 0o600 });
      const derived = execFileSync("ssh-keygen", ["-y", "-f", file], { encoding: "utf8" }).trim();
      // ssh-keygen -y prints the comment it found in the file: the very line we show.
      expect(derived).toBe(key.publicKey);
    }
  });

  it("makes a new key every time", () => {
    expect(generateDeployKey("a").publicKey).not.toBe(generateDeployKey("a").publicKey);
  });
});
