"use client";
import type { Scoped } from "@/lib/paths";
import { ServiceHookRuns } from "./hook-runs";
import { HooksDomainsCard } from "./hooks-domains-card";

/** The service page's Hooks tab: one chunk (service-lazy.tsx) for its two cards. */
export function HooksTab({ service }: { service: Scoped }) {
  return (
    <>
      <HooksDomainsCard service={service} />
      <ServiceHookRuns service={service} />
    </>
  );
}
