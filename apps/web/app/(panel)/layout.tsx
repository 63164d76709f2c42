import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import { listEnvironments, listProjects } from "@levelrail/services/project/list";
import { EnvironmentSwitcher } from "@/components/environment-switcher";
import { SignOutButton } from "@/components/sign-out-button";
import { currentEnvironment } from "@/lib/environment";
import { keys } from "@/lib/keys";
import { requireCtx } from "@/lib/session";

/** Every page but /login: signed-out visitors are sent to sign in. The header switches project and environment. */
export default async function PanelLayout({ children }: { children: ReactNode }) {
  const ctx = await requireCtx();
  const qc = new QueryClient();
  const [current, projects] = await Promise.all([currentEnvironment(ctx), listProjects({ ctx })]);
  qc.setQueryData(keys.projects(), projects);
  if (current) {
    qc.setQueryData(keys.currentEnvironment(), current);
    qc.setQueryData(keys.environments(current.project.id), await listEnvironments({ ctx, projectId: current.project.id }));
  }
  return (
    <>
      <header className="topbar">
        <div className="inline">
          <Link href="/" className="brand">
            Levelrail
          </Link>
          <HydrationBoundary state={dehydrate(qc)}>
            <EnvironmentSwitcher />
          </HydrationBoundary>
        </div>
        <nav className="topbar-right" aria-label="Main">
          <Link href="/metrics">Deploys</Link>
          <Link href="/settings">Settings</Link>
          <span className="muted">{ctx.actor.email}</span>
          <SignOutButton />
        </nav>
      </header>
      <main className="page">{children}</main>
    </>
  );
}
