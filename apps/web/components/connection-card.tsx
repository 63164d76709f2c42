import type { Scoped } from "@/lib/paths";
import type { DatabaseView } from "@/lib/types";
import { AttachedBy } from "./database-status";

/**
 * How attached services reach the database (never its password), rendered on the server: a
 * database's host, port, user and name never change. Which services attach it changes, so that
 * list is a client island (AttachedBy) that follows the polled database.
 */
export function ConnectionCard({ database, connection: c, placement = {} }: { database: Scoped; connection: DatabaseView["connection"]; placement?: DatabaseView["placement"] }) {
  const labels = Object.entries(placement).map(([k, v]) => `${k}=${v}`);
  return (
    <section className="card stack" aria-labelledby="connection-title">
      <h2 id="connection-title">Connection</h2>
      <dl className="facts">
        <dt>Host</dt>
        <dd className="mono">{c.host}</dd>
        <dt>Port</dt>
        <dd className="mono">{c.port}</dd>
        <dt>User</dt>
        <dd className="mono">{c.user}</dd>
        <dt>Database</dt>
        <dd className="mono">{c.database}</dd>
        <dt>Password</dt>
        <dd className="muted">generated and sealed; never shown</dd>
        <dt>Runs on</dt>
        <dd data-testid="database-placement">{labels.length > 0 ? <>a swarm node labelled <span className="mono">{labels.join(", ")}</span>, with its data volume there</> : "the manager's engine"}</dd>
      </dl>
      <p className="muted">
        A service attaches it from its own page (Databases): its container gets{" "}
        <span className="mono">
          postgres://{c.user}:…@{c.host}:{c.port}/{c.database}
        </span>{" "}
        under the key you choose, and the host resolves on that service&apos;s app network.
      </p>
      <h3 id="attached-by-title">Attached by</h3>
      <AttachedBy database={database} />
    </section>
  );
}
