import { PHASES, STRATEGIES } from "@levelrail/spec/service-lists";
import { NEW_SERVICE_HINTS } from "@/lib/service-hints";
import { AppsOverview } from "./apps-overview";
import { NewAppForm } from "./new-app-form";
import { NewServiceForm } from "./new-service-form";

/**
 * An environment's apps with their services, and the forms that add to them. A server component:
 * the phase and strategy lists and New service's hints reach the client components as props (in the
 * page's data), not as modules in their JavaScript.
 */
export function EnvironmentFleet({ envId }: { envId: string }) {
  return (
    <>
      <AppsOverview envId={envId} phases={PHASES} />
      <div className="columns">
        <NewAppForm envId={envId} />
        <NewServiceForm envId={envId} strategies={STRATEGIES} hints={NEW_SERVICE_HINTS} />
      </div>
    </>
  );
}
