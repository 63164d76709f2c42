import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import Link from "@/components/link";
import { listEnvironments, listProjects } from "@levelrail/services/project/list";
import type { Ctx } from "@levelrail/services/context";
import { currentEnvironment } from "@/lib/environment";
import { keys } from "@/lib/keys";
import { EnvironmentSwitcher } from "./environment-switcher";
import { SignOutButton } from "./sign-out-button";

/** The panel's header: the brand (home), the project and environment switcher, the main links and the operator. */
export async function PanelHeader({ ctx }: { ctx: Ctx }) {
  const qc = new QueryClient();
  const [current, projects] = await Promise.all([currentEnvironment(ctx), listProjects({ ctx })]);
  qc.setQueryData(keys.projects(), projects);
  if (current) {
    qc.setQueryData(keys.currentEnvironment(), current);
    qc.setQueryData(keys.environments(current.project.id), await listEnvironments({ ctx, projectId: current.project.id }));
  }
  return (
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
        <Link href="/deploys">Deploys</Link>
        <Link href="/nodes">Nodes</Link>
        <Link href="/settings">Settings</Link>
        <Link href="/account">Account</Link>
        <span className="muted topbar-email" title={ctx.actor.email}>
          {ctx.actor.email}
        </span>
        <SignOutButton />
      </nav>
    </header>
  );
}

/** What a page that does not exist says, and the ways back. */
export function NotFoundBody() {
  return (
    <section className="stack" aria-labelledby="not-found-title">
      <h1 id="not-found-title">Page not found</h1>
      <p className="muted">There is nothing here: the address is mistyped, or what it named was deleted or belongs to another organization.</p>
      <p>
        <Link href="/">Back to the dashboard</Link>
      </p>
    </section>
  );
}
