"use client";
import { Alert } from "./alert";

/** EnvEditor's question before a save its `warning` objects to: the warning, "Save anyway" and "Cancel". */
export function SaveAnyway({ message, onSave, onCancel }: { message: string; onSave: () => void; onCancel: () => void }) {
  return (
    <Alert warning>
      <p>{message}</p>
      <div className="buttons">
        <button type="button" onClick={onSave}>
          Save anyway
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </Alert>
  );
}
