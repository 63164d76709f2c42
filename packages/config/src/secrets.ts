import { Keyring, deriveKey, loadMasterKey } from "@levelrail/secrets";

/** The variables the keys come from, as `envSchema` parses them (`LEVELRAIL_DATA_DIR` absolute). */
export interface SecretsEnv {
  LEVELRAIL_DATA_DIR: string;
  LEVELRAIL_MASTER_KEY?: string | undefined;
  LEVELRAIL_PREVIOUS_MASTER_KEYS?: string | undefined;
}

/** Everything a process needs to seal, open and fingerprint secrets and to sign sessions. */
export interface SecretsKitFromEnv {
  /** Seals with the current master key, opens with any configured one. */
  keyring: Keyring;
  /** Keys the HMAC fingerprints of configuration (derived from the master key). */
  fingerprintKey: Buffer;
  /** The current master key itself: better-auth derives its session key from it. */
  masterKey: Buffer;
}

/**
 * The one way a process builds its keys (the web app, the worker, the CLI, the end-to-end
 * fixtures), so what one seals every other can open. Creates `<data dir>/master.key` when
 * no `LEVELRAIL_MASTER_KEY` is set and the file does not exist yet.
 */
export function secretsKitFromEnv(env: SecretsEnv): SecretsKitFromEnv {
  const source = { envKey: env.LEVELRAIL_MASTER_KEY, envPreviousKeys: env.LEVELRAIL_PREVIOUS_MASTER_KEYS, dataDir: env.LEVELRAIL_DATA_DIR };
  const masterKey = loadMasterKey(source);
  return { keyring: new Keyring(source), fingerprintKey: deriveKey(masterKey, "fingerprint"), masterKey };
}
