"use client";
import { useDatabases } from "@/lib/database-queries";
import { useApps, useEnvironmentServices } from "@/lib/fleet-queries";
import { removalText } from "@/lib/removal-text";
import type { EnvironmentItem } from "@/lib/types";
import { Alert } from "./alert";

/**
 * The confirmation "Delete environment" opens (DeleteEnvironment, environment-actions.tsx), in its
 * own chunk: a first load shows only the button. It names everything the delete removes, asked
 * when it opens (the full list of services is asked nowhere else on the page).
 */
export function DeleteEnvironmentConfirm({
  environment,
  dropData,
  onDropData,
  pending,
  onDelete,
  onCancel,
}: {
  environment: EnvironmentItem;
  dropData: boolean;
  onDropData: (drop: boolean) => void;
  pending: boolean;
  onDelete: () => void;
  onCancel: () => void;
}) {
  const appsQuery = useApps(environment.id);
  const servicesQuery = useEnvironmentServices(environment.id);
  const databasesQuery = useDatabases(environment.id);
  const [apps, services, databases] = [appsQuery.data, servicesQuery.data, databasesQuery.data];
  const failed = appsQuery.error ?? servicesQuery.error ?? databasesQuery.error;
  const ready = apps && services && databases;
  return (
    <Alert warning>
      <p>
        {ready
          ? removalText(
              environment.name,
              apps.map((a) => a.name),
              services.map((s) => s.name),
              databases.map((d) => d.name),
              dropData,
            )
          : failed
            ? `could not list what it holds: ${failed.message}`
            : "Loading what it holds…"}
      </p>
      {databases && databases.length > 0 && (
        <label className="check">
          <input type="checkbox" checked={dropData} onChange={(e) => onDropData(e.target.checked)} /> Also delete the databases&apos; data
        </label>
      )}
      <div className="buttons">
        <button type="button" className="danger" disabled={!ready || pending} onClick={onDelete}>
          Delete {environment.name}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </Alert>
  );
}
