"use client";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { NodeAvailabilityInput, NodePatchInput } from "@levelrail/spec/nodes";
import { ApiError, api } from "@/lib/fetcher";
import { Alert } from "./alert";
import { NodeLabelsForm } from "./nodes-labels";

const ACTIONS: { to: NodeAvailabilityInput; label: string }[] = [
  { to: "active", label: "Activate" },
  { to: "pause", label: "Pause" },
  { to: "drain", label: "Drain" },
];

/**
 * A swarm node's controls (admins; the API is the authority and says so with a 403): activate,
 * pause or drain it (drain after a confirmation, as it moves every container off the node), and edit
 * its labels. Each sends `PATCH /api/v1/nodes/{id}`; the answer is a pending change, and the page is
 * refreshed from the server to show it. A drain the API refuses because databases are pinned to the
 * node (409 naming `stopDatabases`) shows its reason with a second, explicit button that sends it.
 */
export function NodeControls({
  id,
  name,
  availability,
  asking,
  labels,
  databases,
}: {
  id: string;
  name: string;
  availability: NodeAvailabilityInput;
  /** The availability a pending change asks for, if any: its button is the one that reads as done. */
  asking: NodeAvailabilityInput | null;
  labels: Record<string, string>;
  /** The caller's databases pinned to this node (a drain stops them). */
  databases: string[];
}) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [confirmDrain, setConfirmDrain] = useState(false);
  /** The API's reason a plain drain was refused: databases are pinned to the node. */
  const [stopping, setStopping] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const target = asking ?? availability;

  const patch = async (body: NodePatchInput) => {
    setBusy(true);
    try {
      await api(`/nodes/${encodeURIComponent(id)}`, { method: "PATCH", body });
      router.refresh();
    } finally {
      setBusy(false);
    }
  };

  async function setAvailability(to: NodeAvailabilityInput, stopDatabases?: true) {
    setError(null);
    setConfirmDrain(false);
    setStopping(null);
    await patch({ availability: to, ...(stopDatabases ? { stopDatabases } : {}) }).catch((err: unknown) => {
      // The API's words for a client that sends the field; here the button below says it.
      if (err instanceof ApiError && err.field === "stopDatabases") setStopping(err.message.replace(/; send "stopDatabases".*$/, "."));
      else setError(err instanceof ApiError ? err.message : "could not send the change; try again");
    });
  }

  return (
    <div className="stack">
      <div className="buttons" role="group" aria-label={`Availability of ${name}`}>
        {ACTIONS.map((a) => (
          <button
            key={a.to}
            type="button"
            className={a.to === "drain" ? "danger" : "secondary"}
            disabled={busy || a.to === target}
            onClick={() => (a.to === "drain" ? (setError(null), setStopping(null), setConfirmDrain(true)) : void setAvailability(a.to))}
          >
            {a.label}
          </button>
        ))}
        {!editing && (
          <button type="button" className="secondary" onClick={() => (setError(null), setEditing(true))}>
            Edit labels
          </button>
        )}
      </div>
      {confirmDrain && (
        <Alert warning>
          <p>
            Drain {name}? The swarm moves every container it runs to the other nodes and places nothing new on it until it is activated
            again.
            {databases.length > 0 && ` The databases pinned to it stop until then: ${databases.join(", ")}.`}
          </p>
          <div className="buttons">
            <button type="button" className="danger" disabled={busy} onClick={() => void setAvailability("drain")}>
              Drain {name}
            </button>
            <button type="button" className="secondary" onClick={() => setConfirmDrain(false)}>
              Cancel
            </button>
          </div>
        </Alert>
      )}
      {stopping && (
        <Alert warning>
          <p data-testid="node-drain-stops">{stopping}</p>
          <div className="buttons">
            <button type="button" className="danger" disabled={busy} onClick={() => void setAvailability("drain", true)}>
              Drain {name} and stop them
            </button>
            <button type="button" className="secondary" onClick={() => setStopping(null)}>
              Cancel
            </button>
          </div>
        </Alert>
      )}
      <Alert error={error} />
      {editing && (
        <NodeLabelsForm
          name={name}
          labels={labels}
          save={(next) => patch({ labels: next })}
          onDone={() => setEditing(false)}
        />
      )}
    </div>
  );
}
