import type { ReactNode } from "react";
import { Alert } from "./alert";

/**
 * A labeled form control with its error below it. The control gets `id`,
 * `aria-invalid` and `aria-describedby` from the render prop.
 */
export function Field({
  id,
  label,
  error,
  hint,
  children,
}: {
  id: string;
  label: string;
  error: string | undefined;
  hint?: string;
  children: (a11y: { id: string; "aria-invalid": boolean; "aria-describedby": string | undefined }) => ReactNode;
}) {
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-invalid": error !== undefined, "aria-describedby": describedBy })}
      {hint && (
        <small id={hintId} className="muted">
          {hint}
        </small>
      )}
      {error && (
        <Alert inline id={errorId}>
          {error}
        </Alert>
      )}
    </div>
  );
}
