"use client";
import { useEffectiveEnv } from "@/lib/queries";
import type { Scoped } from "@/lib/paths";

/** What a secret or credential shows instead of its value. */
export const MASK = "••••••";

/** Every key the container gets, its value (masked when write-only), the tier it came from and the lower tiers it overrides. */
export function EffectiveEnv({ service }: { service: Scoped }) {
  const env = useEffectiveEnv(service);
  return (
    <section className="card" aria-labelledby="effective-env-title">
      <h2 id="effective-env-title">Effective environment</h2>
      <p className="muted">
        What the next container gets. Lowest precedence first: organization, project, environment, service, secret, storage,
        database.
      </p>
      {env.isPending && <p className="muted">Loading…</p>}
      {env.isError && (
        <p className="error" role="alert">
          {env.error.message}
        </p>
      )}
      {env.data?.length === 0 && <p className="muted">No variables.</p>}
      {env.data && env.data.length > 0 && (
        <table aria-labelledby="effective-env-title">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Value</th>
              <th scope="col">Source</th>
              <th scope="col">Overrides</th>
            </tr>
          </thead>
          <tbody>
            {env.data.map((e) => (
              <tr key={e.key}>
                <td className="key-cell">{e.key}</td>
                <td className="mono value-cell">
                  {e.value === null ? (
                    <span title="write-only: never shown" className="muted">
                      {MASK}
                    </span>
                  ) : (
                    e.value
                  )}
                </td>
                <td>
                  <span className={`badge source-${e.source}`}>{e.source}</span>
                </td>
                <td className="muted">{e.overrides.length ? `overrides: ${e.overrides.join(", ")}` : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
