// Where `levelrail login` keeps the panel's URL and token: ~/.config/levelrail/credentials (or under
// XDG_CONFIG_HOME), a file only its owner may read (0600, in a 0700 directory).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

export interface Connection {
  url: string;
  token: string;
}

export function credentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "levelrail", "credentials");
}

/** The panel's base URL as typed (`https://panel.example.com/`), without a trailing slash; refused unless http(s). */
export function normalizeUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`${raw} is not a URL; give the panel's address, like https://panel.example.com`);
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error(`${raw}: the panel's URL must be http(s)`);
  return u.toString().replace(/\/+$/, "");
}

export function saveCredentials(c: Connection, env: NodeJS.ProcessEnv = process.env): string {
  const file = credentialsPath(env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify({ url: c.url, token: c.token }, null, 2)}\n`, { mode: 0o600 });
  // A file that existed keeps its old mode through writeFileSync: set it again.
  chmodSync(file, 0o600);
  return file;
}

/** LEVELRAIL_URL and LEVELRAIL_TOKEN, else what `login` stored; null when neither is there. */
export function loadConnection(env: NodeJS.ProcessEnv = process.env): Connection | null {
  if (env.LEVELRAIL_URL && env.LEVELRAIL_TOKEN) return { url: normalizeUrl(env.LEVELRAIL_URL), token: env.LEVELRAIL_TOKEN };
  const file = credentialsPath(env);
  if (!existsSync(file)) return null;
  const stored = JSON.parse(readFileSync(file, "utf8")) as Partial<Connection>;
  if (typeof stored.url !== "string" || typeof stored.token !== "string") return null;
  return { url: normalizeUrl(env.LEVELRAIL_URL || stored.url), token: env.LEVELRAIL_TOKEN || stored.token };
}
