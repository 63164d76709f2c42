// The operator CLI (`npx levelrail …`, through scripts/levelrail.mjs, which sets up the env).
import { parseArgs } from "node:util";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { createApiToken, createAuth, createOperator, listApiTokens, parseLifetime, revokeApiToken } from "@levelrail/auth";
import { resetSecondFactor } from "@levelrail/auth/account";
import { QUOTA_VARS, databaseUrl as withPasswordFile, envSchema, parseEnv, publicUrl, quotaDefaults } from "@levelrail/config/env";
import { secretsKitFromEnv } from "@levelrail/config/secrets";
import { createDb } from "@levelrail/db/client";
import { runMigrations } from "@levelrail/db/migrate";
import { user } from "@levelrail/db/schema/auth";
import { organization } from "@levelrail/db/schema/orgs";
import { rotateKeyFile } from "@levelrail/secrets";
import { resealAll } from "@levelrail/services/env/rotate";
import { cliSource, recordAudit } from "@levelrail/services/audit/record";
import { bootstrapOrg } from "@levelrail/services/org/create";
import { grantFirstOperator, grantInstallationAdmin, listInstallationAdmins, revokeInstallationAdmin } from "@levelrail/services/operator/admins";
import { type AdminQuotasView, setOrgQuotas, showAllOrgQuotas, showOrgQuotas } from "@levelrail/services/org/quota";
import { LevelrailError } from "@levelrail/spec/errors";
import { QUOTA_KINDS, type QuotaKind } from "@levelrail/spec/quotas";
import { doctor } from "./doctor/main";
import { REMOTE_COMMANDS, REMOTE_USAGE, remoteMain } from "./remote/main";

const USAGE = `usage: levelrail <command>

  admin create --email E --password-stdin   create an operator; the first one owns the default organization and
                                            is the installation's administrator
  admin grant --email E                     make an operator an installation administrator: the only ones who
                                            change the installation's nodes (drain, pause, labels)
  admin revoke --email E                    take it back (the last one is kept)
  admin list                                the installation administrators
  user reset-2fa --email E                  remove a user's second factor (a lost device): they sign in with their
                                            password and enrol again
  token create --email E --name N [--expires-in 90d] [--read-only]
                                            print a new API token (shown once; only its hash is stored)
  token list --email E                      an operator's tokens: name, created, last used, expiry
  token revoke --id ID                      revoke a token at once
  migrate                                   apply pending database migrations
  doctor [--json]                           check the installation: engine, live-restore, clock, disk, ports 80/443,
                                            Caddy, mesh DNS, PostgreSQL, migrations, the worker, backups; one line
                                            per check (ok / warn / fail, and what to do); exit 1 when any fails
  rotate-key                                re-encrypt every secret under a new master key (old keys keep decrypting)
  quota show [--org ID]                     an organization's quotas (without --org: every organization's):
                                            use, limit, and whether the limit is its own or the default
  install                                   (root) install the whole panel as containers the engine restarts after a
                                            crash or a reboot; run again from a newer checkout to upgrade
  uninstall                                 (root) remove the installation's containers, keep its data
  node join --engine DOCKER_HOST --address IP [--name N] [--role worker|manager]
                                            add a host's engine to the swarm this engine manages, after checking
                                            what the overlay needs (2377/tcp, 7946/tcp+udp, 4789/udp both ways,
                                            the MTU); a failed check names itself and its fix, and joins nothing
  quota set --org ID [--apps N] [--services N] [--databases N] [--domains N] [--channels N] [--reset]
                                            set an organization's own quotas (N or \`default\`); --reset: all back to
                                            the installation defaults (LEVELRAIL_QUOTA_*)

Remote commands (config as code, over the panel's API with a token; no database needed):
${REMOTE_USAGE}

The database is DATABASE_URL, else the embedded one of \`npm start\` (in LEVELRAIL_DATA_DIR, default ./.levelrail),
started for the command when \`npm start\` is not running (not for doctor, which only reports it).`;

/** A mistake in how the CLI was called: printed with a pointer to the usage. */
class UsageError extends Error {}

const cliEnv = envSchema.pick({
  DATABASE_URL: true,
  DATABASE_PASSWORD_FILE: true,
  LEVELRAIL_DATA_DIR: true,
  LEVELRAIL_MASTER_KEY: true,
  LEVELRAIL_PREVIOUS_MASTER_KEYS: true,
  PORT: true,
  LEVELRAIL_PUBLIC_URL: true,
  LEVELRAIL_AUDIT_RETENTION_DAYS: true,
  ...QUOTA_VARS,
});
const env = (() => {
  try {
    return parseEnv(cliEnv, process.env, "the levelrail CLI");
  } catch (err) {
    console.error(`levelrail: ${(err as Error).message}`);
    process.exit(1);
  }
})();
const dataDir = env.LEVELRAIL_DATA_DIR;

function databaseUrl(): string {
  if (env.DATABASE_URL) return withPasswordFile({ DATABASE_URL: env.DATABASE_URL, DATABASE_PASSWORD_FILE: env.DATABASE_PASSWORD_FILE });
  throw new LevelrailError("unavailable", "DATABASE_URL is not set (run the CLI as `npx levelrail`, which finds the database of `npm start`)");
}

function flags<T extends Record<string, "string" | "boolean">>(args: string[], spec: T) {
  const options = Object.fromEntries(Object.entries(spec).map(([k, type]) => [k, { type }]));
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as {
      [K in keyof T]?: T[K] extends "string" ? string : boolean;
    };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

const email = (value: string | undefined) => {
  if (!value) throw new UsageError("--email is required");
  const r = z.email().safeParse(value.trim());
  if (!r.success) throw new UsageError(`--email ${value} is not an email address`);
  return r.data;
};

/** The password: all of stdin (one trailing newline dropped), or typed without echo on a terminal. */
async function readPassword(): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
  }
  process.stderr.write("Password: ");
  stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  let typed = "";
  try {
    for await (const chunk of stdin) {
      for (const ch of chunk as string) {
        if (ch === "\r" || ch === "\n") return typed;
        if (ch === "\u0003") throw new LevelrailError("invalid_input", "cancelled");
        if (ch === "\u007f" || ch === "\b") typed = typed.slice(0, -1);
        else typed += ch;
      }
    }
    return typed;
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    process.stderr.write("\n");
  }
}

/** Opens the database for one command and always closes it. */
async function withDb<T>(run: (db: ReturnType<typeof createDb>["db"]) => Promise<T>): Promise<T> {
  const { db, sql } = createDb(databaseUrl(), { max: 2 });
  try {
    return await run(db);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function adminCreate(args: string[]) {
  const f = flags(args, { email: "string", "password-stdin": "boolean" });
  const address = email(f.email);
  if (!f["password-stdin"]) throw new UsageError("pass the password on stdin with --password-stdin (never as an argument)");
  const password = await readPassword();
  await withDb(async (db) => {
    const baseURL = publicUrl(env);
    const auth = createAuth({ db, masterKey: secretsKitFromEnv(env).masterKey, baseURL, trustedOrigins: [baseURL] });
    // The first operator ever owns the default organization; each later one gets their own.
    const [anyOrg] = await db.select({ id: organization.id }).from(organization).limit(1);
    const operator = await createOperator(auth, address, password);
    const { org } = await bootstrapOrg(db, operator.id, anyOrg ? operator.email : "default");
    await recordAudit(db, cliSource(), { orgId: org.id, action: "operator.create", target: { type: "user", id: operator.id, name: operator.email }, fields: ["email"] });
    // The first operator is the installation's administrator too (nodes); later ones are granted it.
    if (!anyOrg) await grantFirstOperator(db, operator.id);
    console.log(`created operator ${operator.email}, owner of the organization "${org.name}"${anyOrg ? "" : " and installation administrator"}`);
  });
}

async function adminGrant(args: string[]) {
  const f = flags(args, { email: "string" });
  const address = email(f.email);
  const done = await withDb((db) => grantInstallationAdmin(db, address));
  console.log(done.already ? `${done.email} is an installation administrator already; nothing changed` : `${done.email} is now an installation administrator`);
}

async function adminRevoke(args: string[]) {
  const f = flags(args, { email: "string" });
  const address = email(f.email);
  const done = await withDb((db) => revokeInstallationAdmin(db, address));
  console.log(`${done.email} is no longer an installation administrator`);
}

async function adminList(args: string[]) {
  flags(args, {});
  const admins = await withDb((db) => listInstallationAdmins(db));
  if (admins.length === 0) console.log("no installation administrators: grant one with levelrail admin grant --email E");
  for (const a of admins) console.log(`${a.email}  since ${a.grantedAt}${a.grantedBy ? `  granted by ${a.grantedBy}` : ""}`);
}

async function userResetTwoFactor(args: string[]) {
  const f = flags(args, { email: "string" });
  const address = email(f.email);
  const had = await withDb(async (db) => {
    const [u] = await db.select({ id: user.id }).from(user).where(eq(user.email, address.toLowerCase()));
    if (!u) throw new LevelrailError("not_found", `no operator with email ${address}`, { field: "email" });
    return resetSecondFactor(db, u.id);
  });
  console.log(had ? `removed the second factor of ${address}; they sign in with their password and enrol again` : `${address} had no second factor; nothing changed`);
}

async function tokenCreate(args: string[]) {
  const f = flags(args, { email: "string", name: "string", "expires-in": "string", "read-only": "boolean" });
  const address = email(f.email);
  const name = f.name?.trim();
  if (!name) throw new UsageError("--name is required (what the token is for, e.g. --name ci)");
  const lifetime = f["expires-in"] === undefined ? undefined : parseLifetime(f["expires-in"]);
  const readOnly = f["read-only"] === true;
  const token = await withDb(async (db) => {
    const made = await createApiToken(db, address, name, lifetime, readOnly);
    // A token belongs to an operator, not an organization: its entry has none.
    const fields = [...(lifetime === undefined ? [] : ["expiresIn"]), ...(readOnly ? ["readOnly"] : [])];
    await recordAudit(db, cliSource(), { orgId: null, action: "token.create", target: { type: "token", name: `${name} (${address})` }, fields });
    return made;
  });
  const until = lifetime === undefined ? "never expires" : `expires ${new Date(Date.now() + lifetime).toISOString()}`;
  console.error(`API token "${name}" for ${address}${readOnly ? ", read-only" : ""}, ${until} (shown only this once):`);
  console.log(token);
}

async function tokenList(args: string[]) {
  const f = flags(args, { email: "string" });
  const address = email(f.email);
  const tokens = await withDb(async (db) => {
    const [u] = await db.select({ id: user.id }).from(user).where(eq(user.email, address.toLowerCase()));
    if (!u) throw new LevelrailError("not_found", `no operator with email ${address}`, { field: "email" });
    return listApiTokens(db, u.id);
  });
  if (tokens.length === 0) console.log(`${address} has no API tokens`);
  for (const t of tokens) {
    const state = t.expired ? "expired" : t.expiresAt ? `expires ${t.expiresAt}` : "no expiry";
    console.log(`${t.id}  ${t.name}  created ${t.createdAt}  last used ${t.lastUsedAt ?? "never"}  ${state}`);
  }
}

async function tokenRevoke(args: string[]) {
  const f = flags(args, { id: "string" });
  if (!f.id) throw new UsageError("--id is required (see `levelrail token list`)");
  const id = f.id;
  await withDb((db) =>
    db.transaction(async (tx) => {
      const t = await revokeApiToken(tx, null, id);
      await recordAudit(tx, cliSource(), { orgId: null, action: "token.revoke", target: { type: "token", id: t.id, name: t.name } });
    }),
  );
  console.log(`revoked token ${id}; it answers 401 from now on`);
}

async function migrate(args: string[]) {
  flags(args, {});
  await runMigrations(databaseUrl(), { auditRetentionDays: env.LEVELRAIL_AUDIT_RETENTION_DAYS });
  console.log("migrations applied");
}

/**
 * File mode: a new master key becomes current and the old one is kept for decryption; every
 * sealed value is then re-sealed under it (safe to re-run after a crash). Env mode: the operator
 * sets the new LEVELRAIL_MASTER_KEY and lists the old one in LEVELRAIL_PREVIOUS_MASTER_KEYS;
 * this command then re-seals everything under the new key.
 */
async function rotateKey(args: string[]) {
  flags(args, {});
  if (!env.LEVELRAIL_MASTER_KEY) rotateKeyFile(dataDir);
  const { keyring } = secretsKitFromEnv(env);
  const { resealed, total } = await withDb(async (db) => {
    const done = await resealAll(db, keyring);
    await recordAudit(db, cliSource(), { orgId: null, action: "installation.rotate-key", target: { type: "installation", name: keyring.currentVersion } });
    return done;
  });
  console.log(`re-encrypted ${resealed} of ${total} sealed values under key ${keyring.currentVersion}`);
  if (!env.LEVELRAIL_MASTER_KEY) console.log("running processes pick up the new key by themselves; restart them to sign everyone in again with the new session key");
}

function printQuotas(view: AdminQuotasView) {
  console.log(`organization ${view.org.name} (${view.org.id})`);
  for (const kind of QUOTA_KINDS) {
    const q = view.quotas[kind];
    const source = q.source === "default" ? "installation default" : "set for this organization";
    console.log(`  ${kind.padEnd(10)} ${`${q.used} of ${q.limit}`.padEnd(14)} ${source}`);
    if (q.used > q.limit) console.log(`  ${"".padEnd(10)} over the limit: nothing is removed; creating more is refused until it is below`);
  }
}

const orgFlag = (value: string | undefined) => {
  if (!value) throw new UsageError("--org is required (the organization's id)");
  return value.trim();
};

async function quotaShow(args: string[]) {
  const f = flags(args, { org: "string" });
  if (f.org === undefined) {
    const all = await withDb((db) => showAllOrgQuotas(db, quotaDefaults(env)));
    if (all.length === 0) console.log("no organizations yet");
    all.forEach(printQuotas);
    return;
  }
  const org = orgFlag(f.org);
  printQuotas(await withDb((db) => showOrgQuotas(db, org, quotaDefaults(env))));
}

/** Sets an organization's own quotas: installation administrators only (whoever runs the CLI on the host). */
async function quotaSet(args: string[]) {
  const f = flags(args, { org: "string", apps: "string", services: "string", databases: "string", domains: "string", channels: "string", reset: "boolean" });
  const org = orgFlag(f.org);
  const input: Partial<Record<QuotaKind, number | null>> & { reset?: boolean } = {};
  for (const kind of QUOTA_KINDS) {
    const value = f[kind]?.trim();
    if (value === undefined) continue;
    if (value === "default") input[kind] = null;
    else if (/^\d+$/.test(value)) input[kind] = Number(value);
    else throw new UsageError(`--${kind} ${value}: must be a whole number or \`default\``);
  }
  if (f.reset) input.reset = true;
  if (Object.keys(input).length === 0) throw new UsageError("nothing to set: give --apps, --services, --databases, --domains, --channels (N or `default`) or --reset");
  printQuotas(await withDb((db) => setOrgQuotas(db, org, input, quotaDefaults(env))));
}

/** Never starts anything: a database that is down is one failed check, not a failed command. */
async function doctorCommand(args: string[]) {
  const code = await doctor(args, process.env, (text) => console.log(text)).catch((err: unknown) => {
    throw new UsageError((err as Error).message);
  });
  // Whatever a check left open (a connection attempt past its deadline) must not keep doctor running.
  process.exit(code);
}

const commands: Record<string, (args: string[]) => Promise<void>> = {
  doctor: doctorCommand,
  "admin create": adminCreate,
  "admin grant": adminGrant,
  "admin revoke": adminRevoke,
  "admin list": adminList,
  "user reset-2fa": userResetTwoFactor,
  "token create": tokenCreate,
  "token list": tokenList,
  "token revoke": tokenRevoke,
  migrate,
  "rotate-key": rotateKey,
  "quota show": quotaShow,
  "quota set": quotaSet,
  "node join": async (args) => {
    process.exitCode = await (await import("./node-join")).nodeJoinCommand(args);
  },
  install: async (args) => (await import("./install/command")).installCommand(args),
  uninstall: async (args) => (await import("./install/command")).uninstallCommand(args),
};

/** One line naming what went wrong; a database that does not answer gets a hint. */
function explain(err: unknown): string {
  if (err instanceof LevelrailError) return err.message;
  const e = err as { code?: string; message?: string; errors?: { code?: string }[] };
  const code = e.code ?? e.errors?.[0]?.code;
  if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "ETIMEDOUT") {
    const target = (() => {
      try {
        const u = new URL(databaseUrl());
        return `${u.hostname}:${u.port || 5432}`;
      } catch {
        return "the database";
      }
    })();
    return `cannot reach the database at ${target} (${code}): is \`npm start\` running, or is DATABASE_URL right?`;
  }
  return e.message?.split("\n")[0] || String(err);
}

async function main(argv: string[]) {
  if (argv.length === 0 || argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h") {
    console.log(USAGE);
    return;
  }
  if (REMOTE_COMMANDS.has(argv[0] ?? "")) {
    process.exitCode = await remoteMain(argv[0]!, argv.slice(1));
    return;
  }
  const two = argv.slice(0, 2).join(" ");
  const [name, rest] = commands[two] ? [two, argv.slice(2)] : [argv[0] ?? "", argv.slice(1)];
  const command = commands[name];
  if (!command) throw new UsageError(`unknown command: ${argv.join(" ")}`);
  await command(rest);
}

try {
  await main(process.argv.slice(2));
} catch (err) {
  const hint = err instanceof UsageError ? " (usage: npx levelrail --help)" : "";
  console.error(`levelrail: ${explain(err)}${hint}`);
  process.exitCode = 1;
}
