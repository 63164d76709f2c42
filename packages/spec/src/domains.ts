/**
 * Domain ownership (docs/operating/domains-and-ingress.md): a domain outside `*.localhost` and the installation's base
 * domains routes, and gets a certificate, only once its organization has proven it owns it with a
 * TXT record `_levelrail-challenge.<domain>` holding the organization's token.
 */

/** `pending`: never proven (yet); `verified`: the record held the token (within the grace period); `failed`: it was proven, then the record went away for longer than the grace period. */
export type DomainProofStatus = "pending" | "verified" | "failed";

/** Where the TXT record goes. */
export const CHALLENGE_LABEL = "_levelrail-challenge";
export const challengeName = (domain: string) => `${CHALLENGE_LABEL}.${domain.toLowerCase()}`;

/** `LEVELRAIL_BASE_DOMAINS`: comma-separated, lower case, without empty entries or a leading dot. */
export function parseBaseDomains(text: string | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((d) => d.trim().toLowerCase().replace(/^\*?\./, "").replace(/\.$/, ""))
    .filter((d) => d.length > 0);
}

const under = (domain: string, base: string) => domain === base || domain.endsWith(`.${base}`);

/** Whether a domain routes without a proof: `*.localhost` (never public) or the installation's own base domains and their subdomains. */
export function isExemptDomain(domain: string, baseDomains: readonly string[]): boolean {
  const d = domain.toLowerCase().replace(/\.$/, "");
  return under(d, "localhost") || baseDomains.some((b) => under(d, b));
}

/** One domain of a service, as the API and the service page show it. */
export interface DomainStatusView {
  /** `verified` for an exempt domain too (`exempt: true`, no record to create). */
  status: DomainProofStatus;
  exempt: boolean;
  /** The record to create (null for an exempt domain). */
  record: { type: "TXT"; name: string; value: string } | null;
  /** The last check of the record: when and what it found (null: not checked yet). */
  lastCheck: { at: string; result: string } | null;
  verifiedAt: string | null;
  /** Whether ingress routes the domain (and Caddy may get it a certificate). */
  routable: boolean;
}

/** domain → its status, for every domain of a service. */
export type DomainStatusMap = Record<string, DomainStatusView>;
