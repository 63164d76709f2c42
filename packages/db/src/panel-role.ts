import postgres from "postgres";

/**
 * The database role the panel (web app and worker) runs as, apart from the role that owns the
 * tables and runs the migrations. Only a table's owner (or a superuser) may drop or disable its
 * triggers, so the audit log's append-only trigger holds against the panel's own role: that role
 * reads and inserts audit entries and nothing more (the retention job deletes through
 * `audit_entry_prune()`, a function owned by the owner), has no privilege at all on `audit_policy`
 * (the retention that function applies, written by the migrate step: migrate.ts), and reads and
 * writes every other table.
 * Nothing in the schema is the panel role's own: it creates, alters and drops nothing.
 *
 * `ensurePanelRole` runs as the owner after every migration (a new table gets its grants) and is
 * safe to run again; it answers the owner's URL with the panel role's name and password.
 */

/** A role name we quote nowhere: letters, digits and `_`, starting with a letter or `_`. */
const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** The password goes into `ALTER ROLE … PASSWORD '…'` (DDL takes no parameters): base64url or hex only. */
const PASSWORD = /^[A-Za-z0-9_-]{16,200}$/;

/** What the panel role may do on the audit log: read and append, nothing else. */
export const AUDIT_PRIVILEGES = ["SELECT", "INSERT"] as const;

export async function ensurePanelRole(ownerUrl: string, { role, password }: { role: string; password: string }): Promise<string> {
  if (!ROLE_NAME.test(role)) throw new Error(`the panel's database role name ${JSON.stringify(role)} must be letters, digits and _`);
  if (!PASSWORD.test(password)) throw new Error("the panel's database role password must be 16 to 200 letters, digits, - or _");
  const sql = postgres(ownerUrl, { max: 1, onnotice: () => {} });
  try {
    const [me] = await sql<{ owner: string; db: string }[]>`select current_user as owner, current_database() as db`;
    if (!me) throw new Error("the database did not say who we are");
    if (me.owner === role) throw new Error(`the panel's role ${role} cannot be the role that owns the tables`);
    await sql.begin(async (tx) => {
      // Roles are the cluster's: one set-up at a time (a second start racing this one waits).
      await tx`select pg_advisory_xact_lock(hashtext('levelrail.panel-role'))`;
      const [exists] = await tx`select 1 from pg_roles where rolname = ${role}`;
      if (!exists) await tx.unsafe(`CREATE ROLE ${role} LOGIN`);
      await tx.unsafe(`ALTER ROLE ${role} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD '${password}'`);
      await tx.unsafe(`GRANT CONNECT ON DATABASE "${me.db.replaceAll('"', '""')}" TO ${role}`);
      await tx.unsafe(`GRANT USAGE ON SCHEMA public TO ${role}`);
      await tx.unsafe(`REVOKE CREATE ON SCHEMA public FROM ${role}`);
      await tx.unsafe(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
      await tx.unsafe(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
      await tx.unsafe(`REVOKE ALL ON TABLE audit_entry FROM ${role}`);
      await tx.unsafe(`GRANT ${AUDIT_PRIVILEGES.join(", ")} ON TABLE audit_entry TO ${role}`);
      // The retention is the owner's: the panel's role may not read, shorten or empty it.
      await tx.unsafe(`REVOKE ALL ON TABLE audit_policy FROM ${role}`);
      await tx.unsafe(`GRANT EXECUTE ON FUNCTION audit_entry_prune() TO ${role}`);
    });
    const url = new URL(ownerUrl);
    url.username = role;
    url.password = password;
    return url.toString();
  } finally {
    await sql.end({ timeout: 5 });
  }
}
