// How hook-run histories page, apart from keys.ts: only the pages listing runs need it.

/** Hook runs per page of the history tables (server prefetch and client use the same). */
export const HOOK_RUNS_PAGE = 20;
/** How hook-run pages chain: each asks for the runs started before the last one shown. */
export const hookRunPaging = {
  initialPageParam: null as string | null,
  getNextPageParam: (last: { nextBefore: string | null }) => last.nextBefore,
};
