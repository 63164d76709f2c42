import { byName } from "./natural-sort";

/** What one page of the dashboard shows: app cards, each with the services of the page that are its own. */
export interface AppGroup<A, S> {
  app: A;
  services: S[];
}

/**
 * Groups a page of services (the server pages newest first) into app cards, the cards and each
 * card's services sorted by name naturally (`s12` before `s100`). The first page also shows every
 * app without services (just created, waiting for one) ahead of the rest; an app the page names
 * but `apps` does not know yet (the two lists are fetched apart) gets a card of its own name.
 */
export function groupByApp<A extends { name: string; services: number }, S extends { app: string; name: string }>(
  page: readonly S[],
  apps: readonly A[],
  firstPage: boolean,
  unknownApp: (name: string) => A,
): AppGroup<A, S>[] {
  const known = new Map(apps.map((a) => [a.name, a]));
  const groups = new Map<string, AppGroup<A, S>>();
  if (firstPage) for (const a of apps) if (a.services === 0) groups.set(a.name, { app: a, services: [] });
  for (const s of page) {
    let g = groups.get(s.app);
    if (!g) {
      g = { app: known.get(s.app) ?? unknownApp(s.app), services: [] };
      groups.set(s.app, g);
    }
    g.services.push(s);
  }
  const sorted = (gs: AppGroup<A, S>[]) => gs.sort(byName((g) => g.app.name));
  const all = [...groups.values()];
  for (const g of all) g.services.sort(byName((s) => s.name));
  return [...sorted(all.filter((g) => g.services.length === 0)), ...sorted(all.filter((g) => g.services.length > 0))];
}

/** "1–50 of 1,000": the range of services a page shows, counted from the newest. */
export function pageRange(pageIndex: number, pageSize: number, shown: number, total: number): string {
  if (shown === 0) return `0 of ${total.toLocaleString("en")}`;
  const first = pageIndex * pageSize + 1;
  return `${first.toLocaleString("en")}–${(first + shown - 1).toLocaleString("en")} of ${total.toLocaleString("en")}`;
}
