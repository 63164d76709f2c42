"use client";
// One hook run (its page, and a deploy step's run); apart from hook-run-queries.ts, whose infinite
// queries only the pages listing runs need.
import { useQuery } from "@tanstack/react-query";
import { api } from "./fetcher";
import { LIVE_INTERVAL_MS, keys } from "./keys";
import type { HookRunDetail } from "./types";

/** One run with its output, polled while it runs so the output streams in. */
export const useHookRun = (id: string) =>
  useQuery({
    queryKey: keys.hookRun(id),
    queryFn: () => api<HookRunDetail>(`/hook-runs/${encodeURIComponent(id)}`),
    refetchInterval: (q) => (q.state.data?.outcome === "running" ? LIVE_INTERVAL_MS : false),
  });
