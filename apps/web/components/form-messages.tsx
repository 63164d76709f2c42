import type { ReactNode } from "react";

/** A form's own error (role alert) and its success note (role status), rendered as text. */
export function FormMessages({ error, done }: { error?: string | undefined; done?: ReactNode }) {
  return (
    <>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {done ? (
        <p className="success" role="status">
          {done}
        </p>
      ) : null}
    </>
  );
}
