import type { ReactNode } from "react";
import { Alert } from "./alert";

/** A form's own error (role alert) and its success note (role status), rendered as text. */
export function FormMessages({ error, done }: { error?: string | undefined; done?: ReactNode }) {
  return (
    <>
      {error && (
        <Alert>
          {error}
        </Alert>
      )}
      {done ? (
        <p className="success" role="status">
          {done}
        </p>
      ) : null}
    </>
  );
}
