import type { ReactNode } from "react";
import { PanelHeader } from "@/components/panel-header";
import { requireCtx } from "@/lib/session";

/** Every page but /login: signed-out visitors are sent to sign in. The header switches project and environment. */
export default async function PanelLayout({ children }: { children: ReactNode }) {
  const ctx = await requireCtx();
  return (
    <>
      <PanelHeader ctx={ctx} />
      <main className="page">{children}</main>
    </>
  );
}
