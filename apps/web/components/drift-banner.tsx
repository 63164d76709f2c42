"use client";
import { useDrift } from "@/lib/service-queries";
import type { Scoped } from "@/lib/paths";
import { Alert } from "./alert";

/**
 * "Configuration changed since the last deploy", with the env keys (names
 * only) and fields that differ, and why a deploy would fail if it would.
 * Shown next to the Deploy button, which applies the changes.
 */
export function DriftBanner({ service }: { service: Scoped }) {
  const drift = useDrift(service);
  const d = drift.data;
  if (!d) return null;
  const changed = d.deployed && (d.changedKeys.length > 0 || d.changedFields.length > 0);
  if (!changed && !d.problem) return null;
  return (
    <div className="warning stack" role="status" aria-labelledby={changed ? "drift-title" : undefined}>
      {changed && (
        <>
          <strong id="drift-title">Configuration changed since the last deploy</strong>
          {d.changedKeys.length > 0 && (
            <p>
              Env: <span className="mono">{d.changedKeys.join(", ")}</span>
            </p>
          )}
          {d.changedFields.length > 0 && (
            <p>
              Fields: <span className="mono">{d.changedFields.join(", ")}</span>
            </p>
          )}
          <p className="muted">Deploy applies them; nothing restarts until then.</p>
        </>
      )}
      {d.problem && (
        <Alert>
          The next deploy will fail: {d.problem}
        </Alert>
      )}
    </div>
  );
}
