"use client";
// One database and its backups (the database's page), apart from the environment page's list.
import { useQuery } from "@tanstack/react-query";
import { databaseBusy } from "./database-queries";
import { api } from "./fetcher";
import { FLEET_INTERVAL_MS, LIVE_INTERVAL_MS, keys } from "./keys";
import { type Scoped, databaseApi } from "./paths";
import type { BackupView, DatabaseDetail } from "./types";

/** One database with who attaches it, its kept volumes and latest restores; polled like a service's status. */
export const useDatabase = (d: Scoped) =>
  useQuery({
    queryKey: keys.databaseDetail(d),
    queryFn: () => api<DatabaseDetail>(databaseApi(d)),
    refetchInterval: (q) => (databaseBusy(q.state.data) ? LIVE_INTERVAL_MS : FLEET_INTERVAL_MS),
  });

/** Whether a backup is being taken or verified (again). */
export const backupBusy = (b: BackupView) => b.status === "running" || b.step !== null;

/** A database's backups, newest first, polled every second while one runs or is verified. */
export const useBackups = (d: Scoped) =>
  useQuery({
    queryKey: keys.backups(d),
    queryFn: () => api<BackupView[]>(databaseApi(d, "/backups")),
    refetchInterval: (q) => (q.state.data?.some(backupBusy) ? LIVE_INTERVAL_MS : FLEET_INTERVAL_MS),
  });
