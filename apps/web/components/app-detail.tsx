"use client";
import { useAppServices, useApps } from "@/lib/fleet-queries";
import { AppCard } from "./apps-overview";
import { AppHookRuns } from "./hook-runs";
import type { Scoped } from "@/lib/paths";
import { Alert } from "./alert";

/** One app: its services with their live phases, and every hook run of them. */
export function AppDetail({ app: ref }: { app: Scoped }) {
  const apps = useApps(ref.environmentId);
  const services = useAppServices(ref);
  const app = apps.data?.find((a) => a.name === ref.name);
  const mine = services.data ?? [];
  return (
    <>
      <Alert error={apps.error} />
      {app && <AppCard app={app} services={mine} heading="Services" />}
      <AppHookRuns app={ref} services={mine.map((s) => s.name)} />
    </>
  );
}
