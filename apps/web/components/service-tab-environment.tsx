"use client";
import type { Scoped } from "@/lib/paths";
import { EffectiveEnv } from "./effective-env";
import { SecretsCard } from "./secrets-card";
import { ServiceEnv } from "./service-env";

/** The service page's Environment tab: one chunk (service-lazy.tsx) for its three cards. */
export function EnvironmentTab({ service }: { service: Scoped }) {
  return (
    <>
      <ServiceEnv service={service} />
      <SecretsCard service={service} />
      <EffectiveEnv service={service} />
    </>
  );
}
