import { formatTime } from "@/lib/time-format";

/** A timestamp shown in UTC, with the exact ISO time on hover. */
export function Timestamp({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={iso}>
      {formatTime(iso)}
    </time>
  );
}
