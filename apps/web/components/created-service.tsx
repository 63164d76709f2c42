"use client";
import Link from "@/components/link";
import type { ServiceView } from "@levelrail/spec/service";
import { serviceHref } from "@/lib/paths";
import { Copyable } from "./copyable";

/** New service's word on the service it created (NewServiceForm): from git, the push webhook to point at it and its secret, shown once. */
export function CreatedService({ service: created }: { service: ServiceView }) {
  if ("image" in created.source) {
    return (
      <p className="success" role="status">
        Created <Link href={serviceHref(created)}>{created.name}</Link>. Deploy it from its page.
      </p>
    );
  }
  return (
    <div className="success stack" role="status">
      <p>
        Created <Link href={serviceHref(created)}>{created.name}</Link>; its first build is queued. Point the repository&apos;s push webhook at{" "}
        <code className="mono">{created.source.git.webhookPath}</code> on this panel, with this secret (shown once):
      </p>
      {created.source.git.webhookSecret && <Copyable label="Secret" text={created.source.git.webhookSecret} copyLabel="Copy the webhook secret" />}
    </div>
  );
}
