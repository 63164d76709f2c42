import Link from "@/components/link";
import { SETTINGS_GROUPS } from "@/lib/settings-pages";

export const metadata = { title: "Settings · Levelrail" };

/**
 * Settings' overview: what each settings page holds. Every card of the single Settings page it
 * replaced has its own page now; an entry carries its card's old heading id, so `/settings#<id>`
 * still lands on the way to it.
 */
export default function SettingsPage() {
  return (
    <>
      <h1>Settings</h1>
      {SETTINGS_GROUPS.map((g) => (
        <section key={g.label} className="card">
          <h2>{g.label}</h2>
          <dl className="settings-overview">
            {g.pages
              .filter((p) => p.href !== "/settings")
              .map((p) => (
                <div key={p.href} id={p.anchor}>
                  <dt>
                    <Link href={p.href}>{p.label}</Link>
                  </dt>
                  <dd className="muted">{p.about}</dd>
                </div>
              ))}
          </dl>
        </section>
      ))}
    </>
  );
}
