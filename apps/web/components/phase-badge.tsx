import type { DatabasePhase } from "@levelrail/spec/database";
import type { Phase } from "@levelrail/spec/service";

/** The observed phase of a service or a database; `testId` lets tests find the one on a page. */
export function PhaseBadge({ phase, testId }: { phase: Phase | DatabasePhase; testId?: string }) {
  return (
    <span className={`badge phase-${phase}`} data-testid={testId}>
      {phase}
    </span>
  );
}
