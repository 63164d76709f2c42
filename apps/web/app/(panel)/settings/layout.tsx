import type { ReactNode } from "react";
import { SettingsNav } from "@/components/settings-nav";
import { SETTINGS_GROUPS } from "@/lib/settings-pages";

/** Every settings page, beside the settings navigation (organization, integrations, environment settings, API). */
export default function SettingsLayout({ children }: { children: ReactNode }) {
  // Only what the navigation draws goes to the client: not the overview's lines about each page.
  const groups = SETTINGS_GROUPS.map((g) => ({ label: g.label, pages: g.pages.map(({ href, label }) => ({ href, label })) }));
  return (
    <div className="settings">
      <SettingsNav groups={groups} />
      <div className="settings-main">{children}</div>
    </div>
  );
}
