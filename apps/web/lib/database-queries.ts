"use client";
// Managed databases: an environment's list (one database and its backups: database-detail-queries.ts).
import { useQuery } from "@tanstack/react-query";
import { useBackupTargets } from "./config-queries";
import { api } from "./fetcher";
import { FLEET_INTERVAL_MS, LIVE_INTERVAL_MS, keys } from "./keys";
import { envApi } from "./paths";
import { useEnvironment } from "./queries";
import type { BackupTargetItem, DatabaseDetail, DatabaseView } from "./types";

/** The backup targets environment `envId`'s databases may use: its organization's (an operator may belong to several). */
export function useEnvironmentBackupTargets(envId: string): BackupTargetItem[] | undefined {
  const targets = useBackupTargets();
  const orgId = useEnvironment(envId).data?.orgId;
  return orgId === undefined ? undefined : targets.data?.filter((t) => t.orgId === orgId);
}

/** Whether a database is on its way somewhere: starting, or restoring. */
export const databaseBusy = (d: DatabaseView | DatabaseDetail | undefined) =>
  d?.phase === "pending" || d?.phase === "starting" || (d !== undefined && "restores" in d && d.restores.some((r) => r.status === "running"));

/** An environment's databases with their live phases, polled every second while one starts, at the fleet's pace otherwise. */
export const useDatabases = (envId: string) =>
  useQuery({
    queryKey: keys.databases(envId),
    queryFn: () => api<DatabaseView[]>(envApi(envId, "/databases")),
    refetchInterval: (q) => (q.state.data?.some(databaseBusy) ? LIVE_INTERVAL_MS : FLEET_INTERVAL_MS),
  });
