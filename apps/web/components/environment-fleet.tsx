import { AppsOverview } from "./apps-overview";
import { NewAppForm } from "./new-app-form";
import { NewServiceForm } from "./new-service-form";

/** An environment's apps with their services, and the forms that add to them. */
export function EnvironmentFleet({ envId }: { envId: string }) {
  return (
    <>
      <AppsOverview envId={envId} />
      <div className="columns">
        <NewAppForm envId={envId} />
        <NewServiceForm envId={envId} />
      </div>
    </>
  );
}
