import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The master key: `LEVELRAIL_MASTER_KEY` (32 bytes, base64) or a random key
 * generated once into `<dataDir>/master.key` with mode 0600. Used directly
 * only for derived keys (sessions, fingerprints); secrets go through a Keyring.
 */
export function loadMasterKey(opts: { envKey: string | undefined; dataDir: string }): Buffer {
  if (opts.envKey) return decodeKey(opts.envKey, "LEVELRAIL_MASTER_KEY");
  const file = join(opts.dataDir, "master.key");
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, randomBytes(32).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  }
  // only when needed: `levelrail install` mounts the data dir read-only into the panel's containers
  if ((statSync(file).mode & 0o777) !== 0o600) chmodSync(file, 0o600);
  return decodeKey(readFileSync(file, "utf8").trim(), file);
}

function decodeKey(text: string, source: string): Buffer {
  const key = Buffer.from(text, "base64");
  if (key.length !== 32) throw new Error(`${source} must be 32 bytes encoded as base64 (got ${key.length} bytes)`);
  return key;
}

/** A purpose-bound subkey, so one master key never serves two uses directly. */
export function deriveKey(master: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", master, Buffer.alloc(0), `levelrail:${purpose}`, 32));
}

/** Short, stable id of a key: lets a ciphertext name the key that sealed it. */
export function keyVersion(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 8);
}

/** AES-256-GCM; the output is `v1:<keyVersion>:<iv>:<tag>:<ciphertext>` (base64 parts). */
export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", keyVersion(key), iv.toString("base64"), cipher.getAuthTag().toString("base64"), ct.toString("base64")].join(":");
}

/** Decrypts with whichever of `keys` sealed it; a wrong key fails closed. */
export function open(keys: Buffer[], sealed: string): string {
  const [v, version, iv, tag, ct] = sealed.split(":");
  if (v !== "v1" || !version || !iv || !tag || ct === undefined) throw new Error("not a sealed value");
  const key = keys.find((k) => keyVersion(k) === version);
  if (!key) throw new Error(`no key with version ${version} is configured; set the master key that sealed this value`);
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(ct, "base64")), decipher.final()]).toString("utf8");
}

export interface KeyringSource {
  envKey: string | undefined;
  /** Older keys, still accepted for decryption (comma-separated base64). */
  envPreviousKeys?: string | undefined;
  dataDir: string;
}

/**
 * Seals with the current key, opens with any known key. In file mode, keys
 * retired by `levelrail rotate-key` live in `<dataDir>/master.key.previous`;
 * a process that meets an unknown key version re-reads the files once, so a
 * rotation done by the CLI is picked up without a restart.
 */
export class Keyring {
  private current!: Buffer;
  private all: Buffer[] = [];

  constructor(private readonly source: KeyringSource) {
    this.reload();
  }

  reload(): void {
    this.current = loadMasterKey(this.source);
    const previous: Buffer[] = [];
    if (this.source.envKey) {
      for (const k of (this.source.envPreviousKeys ?? "").split(",").map((s) => s.trim()).filter(Boolean)) {
        previous.push(decodeKey(k, "LEVELRAIL_PREVIOUS_MASTER_KEYS"));
      }
    } else {
      const file = previousKeysFile(this.source.dataDir);
      if (existsSync(file)) {
        for (const line of readFileSync(file, "utf8").split("\n").map((s) => s.trim()).filter(Boolean)) previous.push(decodeKey(line, file));
      }
    }
    this.all = [this.current, ...previous];
  }

  get currentVersion(): string {
    return keyVersion(this.current);
  }

  seal(plaintext: string): string {
    return seal(this.current, plaintext);
  }

  open(sealed: string): string {
    try {
      return open(this.all, sealed);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith("no key with version")) throw err;
      this.reload();
      return open(this.all, sealed);
    }
  }

  /** The version a sealed value was made with. */
  static versionOf(sealed: string): string | undefined {
    return sealed.split(":")[1];
  }
}

export const previousKeysFile = (dataDir: string) => join(dataDir, "master.key.previous");

/**
 * File mode: make a new current key, keeping the old one for decryption.
 * Returns the new keyring; the caller re-seals every value with it.
 */
export function rotateKeyFile(dataDir: string): void {
  const file = join(dataDir, "master.key");
  const old = readFileSync(file, "utf8").trim();
  // the new files get the old key's owner: `levelrail install` gives the key to the web app's own user
  const owner = statSync(file);
  const sameOwner = (path: string) => {
    if (process.getuid?.() === 0) chownSync(path, owner.uid, owner.gid);
  };
  const prevFile = previousKeysFile(dataDir);
  const prev = existsSync(prevFile) ? readFileSync(prevFile, "utf8") : "";
  writeFileSync(prevFile, `${prev}${old}\n`, { mode: 0o600 });
  sameOwner(prevFile);
  writeFileSync(`${file}.new`, randomBytes(32).toString("base64") + "\n", { mode: 0o600 });
  sameOwner(`${file}.new`);
  renameSync(`${file}.new`, file);
}
