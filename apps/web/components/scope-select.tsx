"use client";
import { usePathname, useRouter } from "next/navigation";

/**
 * The organization (or project) a settings page shows, when the caller has several: choosing one
 * opens the page at `?<param>=<id>` (lib/settings-scope.ts reads it), so the page loads that one's data.
 */
export function ScopeSelect({ id, label, param, value, options }: { id: string; label: string; param: "org" | "project"; value: string; options: { id: string; name: string }[] }) {
  const router = useRouter();
  const pathname = usePathname();
  if (options.length < 2) return null;
  return (
    <div className="field narrow">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => router.push(`${pathname}?${param}=${encodeURIComponent(e.target.value)}`)}>
        {options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
    </div>
  );
}
