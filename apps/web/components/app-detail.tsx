"use client";
import { useAppServices, useApps } from "@/lib/queries";
import { AppCard } from "./apps-overview";
import { AppHookRuns } from "./hook-runs";
import type { Scoped } from "@/lib/paths";

/** One app: its services with their live phases, and every hook run of them. */
export function AppDetail({ app: ref }: { app: Scoped }) {
  const apps = useApps(ref.environmentId);
  const services = useAppServices(ref);
  const app = apps.data?.find((a) => a.name === ref.name);
  const mine = services.data ?? [];
  return (
    <>
      {apps.isError && (
        <p className="error" role="alert">
          {apps.error.message}
        </p>
      )}
      {app && <AppCard app={app} services={mine} heading="Services" />}
      <AppHookRuns app={ref} services={mine.map((s) => s.name)} />
    </>
  );
}
