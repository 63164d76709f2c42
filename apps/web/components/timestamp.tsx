/** A timestamp shown in UTC, with the exact ISO time on hover. */
export function Timestamp({ iso }: { iso: string }) {
  const d = new Date(iso);
  const text = Number.isNaN(d.getTime()) ? iso : d.toISOString().replace("T", " ").slice(0, 19) + " UTC";
  return (
    <time dateTime={iso} title={iso}>
      {text}
    </time>
  );
}
