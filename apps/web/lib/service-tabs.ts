/**
 * The service page's tabs. The active one is the `?tab=` search parameter (none: Overview), so a
 * reload or a shared link opens the same tab; an unknown value opens Overview.
 */
export const SERVICE_TABS = [
  { id: "overview", label: "Overview" },
  { id: "deploys", label: "Deploys" },
  { id: "builds", label: "Builds" },
  { id: "logs", label: "Logs" },
  { id: "environment", label: "Environment" },
  { id: "hooks", label: "Hooks and domains" },
  { id: "settings", label: "Settings" },
] as const;

export type ServiceTabId = (typeof SERVICE_TABS)[number]["id"];

export function serviceTab(param: string | null | undefined): ServiceTabId {
  return SERVICE_TABS.find((t) => t.id === param)?.id ?? "overview";
}
