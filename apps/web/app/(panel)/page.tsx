import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import Link from "@/components/link";
import { EnvironmentFleet } from "@/components/environment-fleet";
import { currentEnvironment, prefetchFleet } from "@/lib/environment";
import { environmentHref } from "@/lib/paths";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Dashboard · Levelrail" };

/** The current environment's apps and services (the one chosen in the header). */
export default async function DashboardPage() {
  const ctx = await requireCtx();
  const current = await currentEnvironment(ctx);
  if (!current) {
    return (
      <>
        <h1>Apps</h1>
        <p className="muted">You have no project with an environment yet. Ask an owner of your organization to add you to one.</p>
      </>
    );
  }
  const { project, environment } = current;
  const qc = new QueryClient();
  await prefetchFleet(qc, ctx, environment.id);
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <h1>Apps</h1>
      <p className="muted">
        In {project.name} / <Link href={environmentHref(environment.id)}>{environment.name}</Link>: its env vars, clone and delete are on
        the environment&apos;s page.
      </p>
      <EnvironmentFleet envId={environment.id} />
    </HydrationBoundary>
  );
}
