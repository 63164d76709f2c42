import { Fragment, type ReactNode } from "react";
import { Alert } from "./alert";

/** A column header; `hidden` ones are read by screen readers only (a column of buttons). */
export type ListHeader = string | { label: string; hidden: true };
/** The last column of a list whose rows end in buttons. */
export const ACTIONS: ListHeader = { label: "Actions", hidden: true };

/** What a list shows from: a react-query result, or anything with the same three fields. */
export interface ListSource<T> {
  data: readonly T[] | undefined;
  error: { message: string } | null;
  isPending?: boolean;
}

/**
 * Every list's body: the error as an alert, the empty text when there is nothing, else a table
 * with one header row and a row per item (`row` returns the `<tr>`, or several).
 */
export interface ListTableProps<T> {
  source: ListSource<T>;
  empty: ReactNode;
  headers: readonly ListHeader[];
  row: (item: T) => ReactNode;
  rowKey: (item: T) => string;
  labelledBy?: string;
  label?: string;
  /** Said while the first answer is awaited; nothing when left out. */
  loading?: string;
}

export function ListTable<T>({ source, empty, headers, row, rowKey, labelledBy, label, loading }: ListTableProps<T>) {
  const items = source.data;
  return (
    <>
      <Alert error={source.error} />
      {!items && !source.error && loading && <p className="muted">{loading}</p>}
      {items?.length === 0 && <p className="muted">{empty}</p>}
      {items && items.length > 0 && (
        <table aria-labelledby={labelledBy} aria-label={labelledBy ? undefined : label}>
          <thead>
            <tr>
              {headers.map((h) =>
                typeof h === "string" ? (
                  <th scope="col" key={h}>
                    {h}
                  </th>
                ) : (
                  <th scope="col" key={h.label}>
                    <span className="visually-hidden">{h.label}</span>
                  </th>
                ),
              )}
            </tr>
          </thead>
          <tbody>
            {items.map((item) => (
              <Fragment key={rowKey(item)}>{row(item)}</Fragment>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/**
 * A card around one list: its heading (which also names the table), what comes before the list
 * (an intro, a control), the list itself, and what follows it (usually the form that adds one).
 */
export function ListCard<T>({
  id,
  title,
  before,
  children,
  ...table
}: {
  /** The heading's id, `<id>-title`, labels the section and the table. */
  id: string;
  title: ReactNode;
  before?: ReactNode;
  children?: ReactNode;
} & Omit<ListTableProps<T>, "labelledBy" | "label">) {
  const titleId = `${id}-title`;
  return (
    <section className="card stack" aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      {before}
      <ListTable<T> {...table} labelledBy={titleId} />
      {children}
    </section>
  );
}
