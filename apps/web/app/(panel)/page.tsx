import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { listApps } from "@levelrail/services/app/app";
import { listServicesPage } from "@levelrail/services/service/view";
import { AppsOverview } from "@/components/apps-overview";
import { NewAppForm } from "@/components/new-app-form";
import { NewServiceForm } from "@/components/new-service-form";
import { SERVICES_PAGE, keys } from "@/lib/keys";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Dashboard · Levelrail" };

export default async function DashboardPage() {
  const ctx = await requireCtx();
  const qc = new QueryClient();
  await Promise.all([
    qc.prefetchQuery({ queryKey: keys.apps(), queryFn: () => listApps({ ctx }) }),
    // Only the first page: the payload stays the same size however large the fleet.
    qc.prefetchQuery({ queryKey: keys.servicesPage(""), queryFn: () => listServicesPage({ ctx, input: { limit: SERVICES_PAGE } }) }),
  ]);
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <h1>Apps</h1>
      <AppsOverview />
      <div className="columns">
        <NewAppForm />
        <NewServiceForm />
      </div>
    </HydrationBoundary>
  );
}
