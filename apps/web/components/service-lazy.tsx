"use client";
import dynamic from "next/dynamic";

/**
 * The service page's parts that are not on its Overview tab, and its charts, in chunks of their own
 * (next/dynamic): a first load of the page downloads what its open tab shows and nothing else. A
 * tab opened later loads its chunk then; on the server they render as before (ssr). A tab's cards
 * share one chunk (service-tab-*.tsx): each next/dynamic costs the first load its loader, so a new
 * card of a tab other than Overview goes into that tab's file.
 *
 * The charts only draw: with a `loading` (nothing) they get a Suspense boundary of their own, so the
 * rest of the page hydrates without waiting for their chunk. The tabs' parts have forms and hydrate
 * with the page (no boundary), so a control that looks ready is ready.
 */
export const ServiceMetrics = dynamic(() => import("./service-metrics").then((m) => m.ServiceMetrics), { loading: () => null });
export const ServiceLogs = dynamic(() => import("./service-logs").then((m) => m.ServiceLogs));
export const BuildsCard = dynamic(() => import("./builds-card").then((m) => m.BuildsCard));
export const EnvironmentTab = dynamic(() => import("./service-tab-environment").then((m) => m.EnvironmentTab));
export const HooksTab = dynamic(() => import("./service-tab-hooks").then((m) => m.HooksTab));
export const SettingsTab = dynamic(() => import("./service-tab-settings").then((m) => m.SettingsTab));
