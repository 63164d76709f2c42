import type { ReactNode } from "react";

/**
 * The one way a page says something went wrong (or, `warning`, asks for care before going on):
 * text with role `alert`, a paragraph, a small note beside a control (`inline`), or a block that
 * holds controls (`warning`). Renders nothing when there is nothing to say, so callers pass a
 * query's `error` or a message that may be empty without a condition of their own.
 */
export function Alert({
  children,
  error,
  inline = false,
  warning = false,
  id,
  className,
}: {
  children?: ReactNode;
  error?: { message: string } | string | null | undefined;
  inline?: boolean;
  warning?: boolean;
  id?: string;
  className?: string;
}) {
  const text = children ?? (typeof error === "string" ? error : error?.message);
  if (text === undefined || text === null || text === "" || text === false) return null;
  const cls = (base: string) => (className ? `${base} ${className}` : base);
  if (warning) {
    return (
      <div id={id} className={cls("warning stack")} role="alert">
        {text}
      </div>
    );
  }
  return inline ? (
    <small id={id} className={cls("error")} role="alert">
      {text}
    </small>
  ) : (
    <p id={id} className={cls("error")} role="alert">
      {text}
    </p>
  );
}
