import { createHmac, timingSafeEqual } from "node:crypto";
import type { GitProvider } from "@levelrail/db/schema/git";

/** The headers a webhook request carries, by lower-case name. */
export type HookHeaders = { get(name: string): string | null };

/** Which provider sent a request, by its event header; null: none of the three. Gitea also sends `X-GitHub-Event`, so it is asked first. */
export function providerOf(headers: HookHeaders): GitProvider | null {
  if (headers.get("x-gitea-event") !== null) return "gitea";
  if (headers.get("x-gitlab-event") !== null) return "gitlab";
  if (headers.get("x-github-event") !== null) return "github";
  return null;
}

/** The provider's event name (`push`, `pull_request`, `Merge Request Hook`, `ping`). */
export function eventOf(provider: GitProvider, headers: HookHeaders): string {
  const name = provider === "gitea" ? "x-gitea-event" : provider === "gitlab" ? "x-gitlab-event" : "x-github-event";
  return headers.get(name) ?? "";
}

/** The sender's delivery id, or null when it sent none. */
export function deliveryOf(provider: GitProvider, headers: HookHeaders): string | null {
  const name = provider === "gitea" ? "x-gitea-delivery" : provider === "gitlab" ? "x-gitlab-event-uuid" : "x-github-delivery";
  const v = headers.get(name)?.trim();
  return v ? v.slice(0, 200) : null;
}

/** Hex HMAC-SHA256 of the raw body, as GitHub (after `sha256=`) and Gitea send it. */
export const hmacHex = (secret: string, body: Uint8Array) => createHmac("sha256", secret).update(body).digest("hex");

/** Constant time for equal lengths; a different length is unequal at once (the length is no secret). */
function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether the request is signed with the source's secret: GitHub `X-Hub-Signature-256:
 * sha256=<hex>`, Gitea `X-Gitea-Signature: <hex>` (both an HMAC-SHA256 of the raw body), GitLab
 * `X-Gitlab-Token` equal to the secret. Compared in constant time; a missing header is false.
 */
export function verifySignature(provider: GitProvider, headers: HookHeaders, body: Uint8Array, secret: string): boolean {
  if (provider === "gitlab") {
    const token = headers.get("x-gitlab-token");
    return token !== null && token.length > 0 && sameBytes(Buffer.from(token), Buffer.from(secret));
  }
  const raw = provider === "github" ? headers.get("x-hub-signature-256") : headers.get("x-gitea-signature");
  if (raw === null) return false;
  const hex = provider === "github" ? (raw.startsWith("sha256=") ? raw.slice("sha256=".length) : null) : raw;
  if (hex === null || !/^[0-9a-fA-F]{64}$/.test(hex)) return false;
  return sameBytes(Buffer.from(hex.toLowerCase(), "hex"), Buffer.from(hmacHex(secret, body), "hex"));
}
