import Link from "@/components/link";
import { type Scoped, serviceHref } from "@/lib/paths";
import { ReleaseTable } from "./release-history";

/**
 * The service's releases: its heading (and with `recent`, "Recent releases" and a link to the whole
 * history) renders on the server; the table, which updates live, is a client island (ReleaseTable).
 */
export function ReleaseHistory({ service, recent }: { service: Scoped; recent?: number }) {
  return (
    <section className="card" aria-labelledby="history-title">
      <div className="card-head">
        <h2 id="history-title">{recent === undefined ? "Release history" : "Recent releases"}</h2>
        {recent !== undefined && <Link href={serviceHref(service, "deploys")}>All releases</Link>}
      </div>
      <ReleaseTable service={service} recent={recent} />
    </section>
  );
}
