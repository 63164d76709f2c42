"use client";
import { usePathname, useSearchParams } from "next/navigation";
import { type KeyboardEvent, type MouseEvent, type ReactNode, useRef } from "react";
import { SERVICE_TABS, type ServiceTabId, serviceTab } from "@/lib/service-tabs";

/**
 * The service page's tabs (the WAI-ARIA tabs pattern, automatic activation): each tab is a link to
 * `?tab=<id>`, so it opens in a new browser tab or survives a reload; a click or an arrow key
 * switches in place through the History API, which Next.js keeps `useSearchParams` in step with (no
 * server round trip; Back returns to the previous tab). Left/Right (wrapping), Home and End move
 * between tabs; Tab moves into the panel. Only the active panel is mounted, so the others poll nothing.
 */
export function ServiceTabs({ panels }: { panels: Record<ServiceTabId, ReactNode> }) {
  const pathname = usePathname();
  const active = serviceTab(useSearchParams().get("tab"));
  const refs = useRef(new Map<ServiceTabId, HTMLAnchorElement>());
  const href = (id: ServiceTabId) => (id === "overview" ? pathname : `${pathname}?tab=${id}`);

  const select = (id: ServiceTabId, focus: boolean) => {
    if (id !== active) window.history.pushState(null, "", href(id));
    if (focus) refs.current.get(id)?.focus();
  };

  const onClick = (e: MouseEvent<HTMLAnchorElement>, id: ServiceTabId) => {
    // A modified click (new tab, new window) is the browser's to handle.
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    select(id, false);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLAnchorElement>, index: number) => {
    const last = SERVICE_TABS.length - 1;
    const to: Record<string, number> = { ArrowRight: index === last ? 0 : index + 1, ArrowLeft: index === 0 ? last : index - 1, Home: 0, End: last };
    if (e.key === " ") {
      e.preventDefault();
      return select(SERVICE_TABS[index]!.id, false);
    }
    const next = to[e.key];
    if (next === undefined) return;
    e.preventDefault();
    select(SERVICE_TABS[next]!.id, true);
  };

  return (
    <>
      <div role="tablist" aria-label="Service sections" className="tabs">
        {SERVICE_TABS.map((t, i) => (
          <a
            key={t.id}
            ref={(el) => {
              if (el) refs.current.set(t.id, el);
              else refs.current.delete(t.id);
            }}
            id={`service-tab-${t.id}`}
            role="tab"
            href={href(t.id)}
            aria-selected={t.id === active}
            aria-controls="service-tab-panel"
            tabIndex={t.id === active ? 0 : -1}
            onClick={(e) => onClick(e, t.id)}
            onKeyDown={(e) => onKeyDown(e, i)}
          >
            {t.label}
          </a>
        ))}
      </div>
      <div role="tabpanel" id="service-tab-panel" aria-labelledby={`service-tab-${active}`} tabIndex={0} className="stack tab-panel">
        {panels[active]}
      </div>
    </>
  );
}
