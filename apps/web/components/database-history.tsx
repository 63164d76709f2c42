"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, Suspense, lazy, useState } from "react";
import { ApiError, api } from "@/lib/fetcher";
import { bareMessage } from "@/lib/form";
import { keys } from "@/lib/keys";
import { type Scoped, databaseApi } from "@/lib/paths";
import { useDatabase } from "@/lib/database-detail-queries";
import type { RestoreView } from "@/lib/types";
import { Field } from "./field";
import { ListTable } from "./list-card";
import { Timestamp } from "./timestamp";

/** The delete's form, in its own chunk: it opens from the "Delete database" button. */
const DeleteDatabaseForm = lazy(() => import("./delete-database-form").then((m) => ({ default: m.DeleteDatabaseForm })));

const RESTORE_CLASSES: Record<RestoreView["status"], string> = {
  running: "outcome-running",
  succeeded: "outcome-succeeded",
  failed: "outcome-failed",
  interrupted: "outcome-error",
};

/** The database's latest restores and the volumes a replace kept, each removable by typing its name. */
export function RestoresCard({ database }: { database: Scoped }) {
  const d = useDatabase(database);
  if (!d.data) return null;
  const { restores, previousVolumes } = d.data;
  return (
    <section className="card stack" aria-labelledby="restores-title">
      <h2 id="restores-title">Restores and kept volumes</h2>
      <ListTable
        label="Restores"
        source={{ data: restores, error: null }}
        empty="No restores yet."
        headers={["Started", "Kind", "Status", "Message"]}
        rowKey={(r) => r.id}
        row={(r) => (
          <tr>
            <td>
              <Timestamp iso={r.createdAt} />
            </td>
            <td>{r.mode === "into" ? "into this new database" : "replaced the data"}</td>
            <td>
              <span className={`badge ${RESTORE_CLASSES[r.status]}`} data-testid="restore-status">
                {r.status}
              </span>
            </td>
            <td className="message">{r.message || "—"}</td>
          </tr>
        )}
      />
      <h3 id="volumes-title">Kept volumes</h3>
      {previousVolumes.length === 0 ? (
        <p className="muted">None: a restore that replaces the data keeps the volume it replaced here until you remove it.</p>
      ) : (
        <ul className="stack volume-list" aria-labelledby="volumes-title">
          {previousVolumes.map((v) => (
            <li key={v.name}>
              <KeptVolume database={database} name={v.name} retiredAt={v.retiredAt} removing={v.removing} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function KeptVolume({ database, name, retiredAt, removing }: { database: Scoped; name: string; retiredAt: string; removing: boolean }) {
  const qc = useQueryClient();
  const [armed, setArmed] = useState(false);
  const [confirm, setConfirm] = useState("");
  const [error, setError] = useState<string | undefined>();
  const remove = useMutation({
    mutationFn: () => api(databaseApi(database, `/volumes/${encodeURIComponent(name)}`), { method: "DELETE", body: { confirm } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.database(database) }),
    onError: (err) => setError(err instanceof ApiError ? bareMessage(err.message, err.field) : "could not remove the volume"),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    if (confirm !== name) return setError(`type ${name} to remove it`);
    setError(undefined);
    remove.mutate();
  }

  return (
    <div className="stack">
      <span>
        <span className="mono">{name}</span> <span className="muted">kept since</span> <Timestamp iso={retiredAt} />
        {removing && <span className="muted"> · being removed</span>}
      </span>
      {!removing &&
        (armed ? (
          <form className="inline" onSubmit={submit} aria-label={`Remove volume ${name}`} noValidate>
            <Field id={`remove-${name}`} label={`Type ${name} to remove its data for good`} error={error}>
              {(a) => <input {...a} className="mono" value={confirm} onChange={(e) => setConfirm(e.target.value)} autoComplete="off" />}
            </Field>
            <button type="submit" className="danger" disabled={remove.isPending}>
              Remove volume
            </button>
            <button type="button" className="secondary" onClick={() => setArmed(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <div className="buttons">
            <button type="button" className="secondary" onClick={() => setArmed(true)}>
              Remove…
            </button>
          </div>
        ))}
    </div>
  );
}

/** "Delete database": its name typed to confirm; its data volume is kept unless "also delete its data" is ticked. */
export function DeleteDatabase({ database }: { database: Scoped }) {
  const d = useDatabase(database);
  const [armed, setArmed] = useState(false);
  const [confirm, setConfirm] = useState("");
  const [dropData, setDropData] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const attached = d.data?.attachedBy ?? [];

  return (
    <section className="card stack" aria-labelledby="delete-database-title">
      <h2 id="delete-database-title">Delete database</h2>
      {attached.length > 0 && (
        <p className="muted">
          Attached by {[...new Set(attached.map((a) => a.service))].join(", ")}: detach it from their pages first.
        </p>
      )}
      {!armed ? (
        <div className="buttons">
          <button type="button" className="secondary" onClick={() => setArmed(true)}>
            Delete database
          </button>
        </div>
      ) : (
        <Suspense fallback={null}>
          <DeleteDatabaseForm
            database={database}
            confirm={confirm}
            onConfirm={setConfirm}
            dropData={dropData}
            onDropData={setDropData}
            error={error}
            onError={setError}
            onCancel={() => setArmed(false)}
          />
        </Suspense>
      )}
    </section>
  );
}
