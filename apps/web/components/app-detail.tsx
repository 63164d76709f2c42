"use client";
import { useAppServices, useApps } from "@/lib/queries";
import { AppCard } from "./apps-overview";
import { AppHookRuns } from "./hook-runs";

/** One app: its services with their live phases, and every hook run of them. */
export function AppDetail({ name }: { name: string }) {
  const apps = useApps();
  const services = useAppServices(name);
  const app = apps.data?.find((a) => a.name === name);
  const mine = services.data ?? [];
  return (
    <>
      {apps.isError && (
        <p className="error" role="alert">
          {apps.error.message}
        </p>
      )}
      {app && <AppCard app={app} services={mine} heading="Services" />}
      <AppHookRuns app={name} services={mine.map((s) => s.name)} />
    </>
  );
}
