import type { Phase } from "@levelrail/spec/service";

const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

/** Names as people sort them: digits by their value (`s2` < `s12` < `s100`), case aside; ties broken by code point, so the order is total. */
export function naturalCompare(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** A comparator of things by their name, naturally. */
export const byName =
  <T>(name: (x: T) => string) =>
  (a: T, b: T): number =>
    naturalCompare(name(a), name(b));

/** The dashboard's filter: a part of a service's name and one phase, empty meaning any. */
export interface FleetFilter {
  name: string;
  phase: Phase | "";
}

export const NO_FILTER: FleetFilter = { name: "", phase: "" };

/** Whether the filter narrows anything (then apps without a matching service are not shown). */
export const filtering = (f: FleetFilter): boolean => f.name.trim() !== "" || f.phase !== "";

/** The filter as the services list's query parameters (`name`, `phase`), leaving out what is empty. */
export function filterParams(f: FleetFilter): { name?: string; phase?: Phase } {
  const name = f.name.trim().toLowerCase();
  return { ...(name ? { name } : {}), ...(f.phase ? { phase: f.phase } : {}) };
}
