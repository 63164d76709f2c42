import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { secretsKitFromEnv } from "./secrets";

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "levelrail-config-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("secretsKitFromEnv", () => {
  it("builds the same keys from the same master key, in every process", () => {
    const key = randomBytes(32).toString("base64");
    const a = secretsKitFromEnv({ LEVELRAIL_DATA_DIR: "/nonexistent", LEVELRAIL_MASTER_KEY: key });
    const b = secretsKitFromEnv({ LEVELRAIL_DATA_DIR: "/nonexistent", LEVELRAIL_MASTER_KEY: key });
    expect(b.keyring.open(a.keyring.seal("s3cret"))).toBe("s3cret");
    expect(b.fingerprintKey.equals(a.fingerprintKey)).toBe(true);
    expect(a.masterKey.equals(Buffer.from(key, "base64"))).toBe(true);
    expect(a.fingerprintKey.equals(a.masterKey)).toBe(false);
  });

  it("opens what a previous master key sealed", () => {
    const old = randomBytes(32).toString("base64");
    const sealed = secretsKitFromEnv({ LEVELRAIL_DATA_DIR: "/nonexistent", LEVELRAIL_MASTER_KEY: old }).keyring.seal("v");
    const kit = secretsKitFromEnv({
      LEVELRAIL_DATA_DIR: "/nonexistent",
      LEVELRAIL_MASTER_KEY: randomBytes(32).toString("base64"),
      LEVELRAIL_PREVIOUS_MASTER_KEYS: old,
    });
    expect(kit.keyring.open(sealed)).toBe("v");
  });

  it("without a master key, generates one into the data dir once (mode 0600) and reuses it", () => {
    const dir = tempDir();
    const first = secretsKitFromEnv({ LEVELRAIL_DATA_DIR: dir });
    expect(statSync(join(dir, "master.key")).mode & 0o777).toBe(0o600);
    const second = secretsKitFromEnv({ LEVELRAIL_DATA_DIR: dir });
    expect(second.masterKey.equals(first.masterKey)).toBe(true);
    expect(second.keyring.open(first.keyring.seal("x"))).toBe("x");
  });
});
