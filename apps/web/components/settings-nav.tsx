"use client";
import { usePathname } from "next/navigation";
import Link from "@/components/link";
import type { SettingsNavGroup } from "@/lib/settings-pages";

/**
 * The settings pages' navigation, beside every settings page (app/(panel)/settings/layout.tsx):
 * the groups and their pages come from the server as props (lib/settings-pages.ts); this part only
 * marks the page shown (`aria-current="page"`), which a layout kept across pages cannot know.
 */
export function SettingsNav({ groups }: { groups: SettingsNavGroup[] }) {
  const pathname = usePathname();
  return (
    <nav className="settings-nav" aria-label="Settings">
      {groups.map((g) => (
        <div key={g.label} className="settings-nav-group">
          <p className="settings-nav-label">{g.label}</p>
          <ul>
            {g.pages.map((p) => (
              <li key={p.href}>
                <Link href={p.href} aria-current={p.href === pathname ? "page" : undefined}>
                  {p.label}
                </Link>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}
