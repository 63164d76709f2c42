/**
 * Under a per-service table that lists only the most active services: how many it shows of how
 * many, and a button that asks for every one. Nothing when it shows them all.
 */
export function MoreServices({ shown, total, most, onShowAll, loading }: { shown: number; total: number; most: string; onShowAll: () => void; loading: boolean }) {
  if (shown >= total) return null;
  return (
    <p className="muted">
      The {shown} {most} of {total} services.{" "}
      <button type="button" className="secondary" onClick={onShowAll} disabled={loading} aria-busy={loading}>
        {loading ? "Loading…" : `Show all ${total}`}
      </button>
    </p>
  );
}
