// Where things live, in the API and in the UI: every environment-scoped path is built here, so the
// shape `/environments/{envId}/…` is written once.
import type { ServiceTabId } from "./service-tabs";

/** A service or an app, named within its environment (ServiceView, ServiceItem and AppItem are all one). */
export interface Scoped {
  environmentId: string;
  name: string;
}

const enc = encodeURIComponent;

/** The API path (under /api/v1) of an environment, or of something inside it. */
export const envApi = (envId: string, rest = "") => `/environments/${enc(envId)}${rest}`;
/** The API path of a service, or of its `suffix` (`/status`, `/secrets/KEY`). */
export const serviceApi = (s: Scoped, suffix = "") => envApi(s.environmentId, `/services/${enc(s.name)}${suffix}`);
/** The API path of an app, or of its `suffix`. */
export const appApi = (a: Scoped, suffix = "") => envApi(a.environmentId, `/apps/${enc(a.name)}${suffix}`);

/** The API path of a database, or of its `suffix` (`/backups`, `/restore`). */
export const databaseApi = (d: Scoped, suffix = "") => envApi(d.environmentId, `/databases/${enc(d.name)}${suffix}`);

/** The UI page of an environment. */
export const environmentHref = (envId: string) => `/environments/${enc(envId)}`;
/** The UI page of a service, on one of its tabs (`?tab=`; none: Overview). */
export const serviceHref = (s: Scoped, tab?: ServiceTabId) =>
  `${environmentHref(s.environmentId)}/services/${enc(s.name)}${tab && tab !== "overview" ? `?tab=${tab}` : ""}`;
/** The UI page of an app. */
export const appHref = (a: Scoped) => `${environmentHref(a.environmentId)}/apps/${enc(a.name)}`;
/** The UI page of a database. */
export const databaseHref = (d: Scoped) => `${environmentHref(d.environmentId)}/databases/${enc(d.name)}`;
