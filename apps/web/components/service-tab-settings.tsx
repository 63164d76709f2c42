"use client";
import type { Scoped } from "@/lib/paths";
import { Attachments } from "./attachments";
import { DatabaseAttachments } from "./database-attachments";
import type { EngineKind } from "./scale-form";
import { ServiceConfig } from "./service-config";
import { SourceCard } from "./source-card";

/** The service page's Settings tab: one chunk (service-lazy.tsx) for its four cards. */
export function SettingsTab({ service, publicUrl, denied, engine }: { service: Scoped; publicUrl: string; denied: string | null; engine: EngineKind }) {
  return (
    <>
      <SourceCard service={service} publicUrl={publicUrl} denied={denied} />
      <ServiceConfig service={service} engine={engine} />
      <Attachments service={service} />
      <DatabaseAttachments service={service} />
    </>
  );
}
