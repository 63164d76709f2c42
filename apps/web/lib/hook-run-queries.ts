import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { api } from "./fetcher";
import { HOOK_RUNS_PAGE, hookRunPaging } from "./hook-run-paging";
import { LIVE_INTERVAL_MS, keys } from "./keys";
import { type Scoped, appApi, serviceApi } from "./paths";
import { withQuery } from "./queries";
import { useServiceInterval } from "./service-queries";
import type { HookRunPage } from "./types";

// Apart from queries.ts: react-query's infinite queries (about 2 kB gzip) load only on the pages
// that list hook runs (a service's Hooks tab and deploy steps, an app's page), not on every page.

/** Hook runs newest first, a page at a time ("Load more" fetches the next); every loaded page is polled. */
const useHookRuns = (queryKey: readonly unknown[], path: string, refetchInterval: number | (() => number), service?: string) =>
  useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => api<HookRunPage>(withQuery(path, { service, limit: HOOK_RUNS_PAGE, before: pageParam })),
    ...hookRunPaging,
    refetchInterval,
    // A changed filter keeps showing the previous runs until the new ones arrive.
    placeholderData: keepPreviousData,
  });

/** A service's hook runs, polled every second while it deploys (its hooks run then). */
export const useServiceHookRuns = (s: Scoped) => useHookRuns(keys.serviceHookRuns(s), serviceApi(s, "/hook-runs"), useServiceInterval(s));

/** `service` "" for every service of the app. */
export const useAppHookRuns = (app: Scoped, service: string) =>
  useHookRuns(keys.appHookRuns(app, service), appApi(app, "/hook-runs"), LIVE_INTERVAL_MS, service);

