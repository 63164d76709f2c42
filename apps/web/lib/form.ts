/** Field → message, the first problem of each field. */
export type FieldErrors = Partial<Record<string, string>>;

/** The top-level form field an API error's `field` (e.g. `env.FOO`) belongs to. */
export const topField = (field: string | undefined) => (field ? (field.split(".")[0] ?? field) : "form");

/** The message of an API error without its leading `field: ` (the form shows it next to that field). */
export const bareMessage = (message: string, field: string | undefined) =>
  field !== undefined && message.startsWith(`${field}: `) ? message.slice(field.length + 2) : message;

/** A number input's value: empty stays undefined so the schema can say "is required". */
export const numberOrUndefined = (v: string) => (v.trim() === "" ? undefined : Number(v));
