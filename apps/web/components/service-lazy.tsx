"use client";
import dynamic from "next/dynamic";

/**
 * The service page's parts that are not on its Overview tab, and its charts, each in its own chunk
 * (next/dynamic): a first load of the page downloads what its open tab shows and nothing else. A
 * part opened later (another tab) loads its chunk then; on the server they render as before (ssr).
 * A new card of a tab other than Overview belongs here too.
 *
 * The charts only draw: with a `loading` (nothing) they get a Suspense boundary of their own, so the
 * rest of the page hydrates without waiting for their chunk. The tabs' parts have forms and hydrate
 * with the page (no boundary), so a control that looks ready is ready.
 */
export const ServiceMetrics = dynamic(() => import("./service-metrics").then((m) => m.ServiceMetrics), { loading: () => null });
export const ServiceLogs = dynamic(() => import("./service-logs").then((m) => m.ServiceLogs));
export const ServiceEnv = dynamic(() => import("./service-env").then((m) => m.ServiceEnv));
export const SecretsCard = dynamic(() => import("./secrets-card").then((m) => m.SecretsCard));
export const EffectiveEnv = dynamic(() => import("./effective-env").then((m) => m.EffectiveEnv));
export const HooksDomainsCard = dynamic(() => import("./hooks-domains-card").then((m) => m.HooksDomainsCard));
export const ServiceHookRuns = dynamic(() => import("./hook-runs").then((m) => m.ServiceHookRuns));
export const ServiceConfig = dynamic(() => import("./service-config").then((m) => m.ServiceConfig));
export const Attachments = dynamic(() => import("./attachments").then((m) => m.Attachments));
export const DatabaseAttachments = dynamic(() => import("./database-attachments").then((m) => m.DatabaseAttachments));
export const BuildsCard = dynamic(() => import("./builds-card").then((m) => m.BuildsCard));
export const SourceCard = dynamic(() => import("./source-card").then((m) => m.SourceCard));
