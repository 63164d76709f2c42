"use client";
import { removalText } from "@/lib/removal-text";
import type { AppItem, DatabaseView, EnvironmentItem, ServiceItem } from "@/lib/types";
import { Alert } from "./alert";

/**
 * The confirmation "Delete environment" opens (DeleteEnvironment, environment-actions.tsx), in its
 * own chunk: a first load shows only the button. It names everything the delete removes.
 */
export function DeleteEnvironmentConfirm({
  environment,
  apps,
  services,
  databases,
  dropData,
  onDropData,
  pending,
  onDelete,
  onCancel,
}: {
  environment: EnvironmentItem;
  apps: AppItem[] | undefined;
  services: ServiceItem[] | undefined;
  databases: DatabaseView[] | undefined;
  dropData: boolean;
  onDropData: (drop: boolean) => void;
  pending: boolean;
  onDelete: () => void;
  onCancel: () => void;
}) {
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
