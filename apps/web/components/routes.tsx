import type { StatusView } from "@levelrail/spec/service";

/** The address a domain is served at through the ingress (the port only when it is not HTTP's own). */
export const domainUrl = (domain: string, port: number) => `http://${domain}${port === 80 ? "" : `:${port}`}/`;

/** Each domain as a link, with whether the ingress routes it now or why not. */
export function Routes({ ingress, port }: { ingress: NonNullable<StatusView["ingress"]>; port: number }) {
  return (
    <ul className="routes">
      {ingress.domains.map((d) => {
        const url = domainUrl(d, port);
        return (
          <li key={d}>
            <a href={url} target="_blank" rel="noreferrer noopener">
              {url}
            </a>{" "}
            {ingress.live ? (
              <span className="badge route-live">route live</span>
            ) : (
              <span className="badge route-down">not routed: {ingress.message}</span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
