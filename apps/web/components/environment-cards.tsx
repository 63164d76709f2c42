import type { EnvironmentItem } from "@/lib/types";
import { CloneEnvironmentForm } from "./environment-actions";

/** The Clone environment card: its heading and text render on the server, its form is a client island. */
export function CloneEnvironmentCard({ environment, denied }: { environment: EnvironmentItem; denied: string | null }) {
  return (
    <CloneEnvironmentForm environment={environment} denied={denied}>
      <h2 id="clone-title">Clone environment</h2>
      <p className="muted">
        Copies {environment.name}&apos;s apps, services, env vars and secrets into a new environment of this project. Domains are not
        copied; nothing deploys unless you ask.
      </p>
    </CloneEnvironmentForm>
  );
}
