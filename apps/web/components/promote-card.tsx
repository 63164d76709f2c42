import type { Scoped } from "@/lib/paths";
import { PromoteControl } from "./promote-control";

/** The Promote card: its heading and text render on the server, its buttons are a client island (PromoteControl). */
export function PromoteCard({ service, projectId, denied = null }: { service: Scoped; projectId: string; denied?: string | null }) {
  return (
    <section className="card stack" aria-labelledby="promote-title">
      <h2 id="promote-title">Promote</h2>
      <p className="muted">Deploys the exact image running here (by id, not by tag) to the same-named service of another environment.</p>
      <PromoteControl service={service} projectId={projectId} denied={denied} />
    </section>
  );
}
