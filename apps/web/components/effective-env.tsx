"use client";
import { useEffectiveEnv } from "@/lib/service-queries";
import type { Scoped } from "@/lib/paths";
import { ListCard } from "./list-card";

/** What a secret or credential shows instead of its value. */
export const MASK = "••••••";

/** Every key the container gets, its value (masked when write-only), the tier it came from and the lower tiers it overrides. */
export function EffectiveEnv({ service }: { service: Scoped }) {
  const env = useEffectiveEnv(service);
  return (
    <ListCard
      id="effective-env"
      title="Effective environment"
      before={
        <p className="muted">
          What the next container gets. Lowest precedence first: organization, project, environment, service, secret, storage,
          database.
        </p>
      }
      source={env}
      loading="Loading…"
      empty="No variables."
      headers={["Key", "Value", "Source", "Overrides"]}
      rowKey={(e) => e.key}
      row={(e) => (
        <tr>
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
      )}
    />
  );
}
