// The settings pages' fixed text, rendered on the server and handed to its client cards as props:
// text in a client component is shipped twice (in the HTML and in its JavaScript), here only once.

/** What Settings › Organization env and Env tiers say first: the tiers' order. */
export function TierEnvSummary() {
  return (
    <p className="muted">
      Env vars by tier, lowest precedence first: organization, project, environment. A service&apos;s own env, its secrets and
      its storage attachment override them.
    </p>
  );
}

/** The Previews card's text (PreviewsCard). */
export function PreviewsIntro() {
  return (
    <p className="muted">
      Each pull or merge request of a repository the project builds from gets an environment <code>pr-&lt;number&gt;</code>, cloned from the base
      environment (no domains copied), built at its head commit and routed at <code>pr-&lt;number&gt;.&lt;domain&gt;</code>. Closing the request
      deletes it; so does the sweep, for a request no longer open or a preview past its time to live.
    </p>
  );
}

/** The Notifications card's text (NotificationsCard). */
export function NotificationsIntro() {
  return (
    <p className="muted">
      Webhooks (signed with <code>X-Levelrail-Signature</code>) and email, for the events each channel picks. Failed deliveries are retried with backoff;
      a notification never carries a secret value.
    </p>
  );
}

/**
 * The Git credentials card's text (GitCredentialsCard), naming the organization the card shows:
 * the current environment's, as the card picks it (the header's switch refreshes the page).
 */
export function GitCredentialsIntro({ orgName }: { orgName: string | undefined }) {
  return (
    <p className="muted">
      What a git source fetches with{orgName ? ` in ${orgName}` : ""}: a deploy key (add its public key to the repository, read-only) or an HTTPS
      token. The private key and the token are never shown.
    </p>
  );
}

/** Who sets an organization's quotas (QuotasCard, after "The most the organization … may have."). */
export function QuotasNote() {
  return (
    <>
      The installation&apos;s administrator sets them (<code>npx levelrail quota set</code>); creating more is refused.
    </>
  );
}
