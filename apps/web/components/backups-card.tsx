"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, Suspense, lazy, useState } from "react";
import { backupBadge, backupDetail, backupDuration, backupReadable, formatBytes, shortSha } from "@/lib/database-format";
import { ApiError, api } from "@/lib/fetcher";
import { bareMessage } from "@/lib/form";
import { keys } from "@/lib/keys";
import { type Scoped, databaseApi } from "@/lib/paths";
import { useBackups, useDatabase } from "@/lib/database-detail-queries";
import { useEnvironmentBackupTargets } from "@/lib/database-queries";
import type { BackupView } from "@/lib/types";
import { Alert } from "./alert";
import { Field } from "./field";
import { ACTIONS, ListCard } from "./list-card";
import { FormMessages } from "./form-messages";
import { Timestamp } from "./timestamp";

/**
 * The restore form, in its own chunk: a first load shows none (it opens from a backup's
 * "Restore…"). React.lazy, not next/dynamic: the server never renders it, and next/dynamic's own
 * runtime would cost this page more than the chunk saves.
 */
const RestoreForm = lazy(() => import("./restore-form").then((m) => ({ default: m.RestoreForm })));

/** The database's backups, newest first, with "Back up now", and per backup "Verify again" and "Restore…". */
export function BackupsCard({ database }: { database: Scoped }) {
  const backups = useBackups(database);
  // Which backup "Restore…" opened, and how many times: each click starts the form afresh.
  const [restoring, setRestoring] = useState<{ id: string; opened: number } | null>(null);
  const chosen = backups.data?.find((b) => b.id === restoring?.id);
  return (
    <ListCard
      id="backups"
      title="Backups"
      before={<BackUpNow database={database} />}
      source={backups}
      empty="No backups yet."
      headers={["Time", "Trigger", "Size", "Duration", "SHA-256", "Status", ACTIONS]}
      rowKey={(b) => b.id}
      row={(b) => (
        <BackupRow database={database} backup={b} selected={b.id === restoring?.id} onRestore={() => setRestoring((r) => ({ id: b.id, opened: (r?.opened ?? 0) + 1 }))} />
      )}
    >
      {chosen && restoring && (
        <Suspense fallback={null}>
          <RestoreForm key={`${chosen.id}-${restoring.opened}`} database={database} backup={chosen} onClose={() => setRestoring(null)} />
        </Suspense>
      )}
    </ListCard>
  );
}

/** "Back up now": to the schedule's target, or to one chosen here when the database has no schedule. */
function BackUpNow({ database }: { database: Scoped }) {
  const qc = useQueryClient();
  const d = useDatabase(database);
  const targets = useEnvironmentBackupTargets(database.environmentId);
  const [targetId, setTargetId] = useState("");
  const [errors, setErrors] = useState<{ targetId?: string; form?: string }>({});
  const scheduled = d.data?.backupSchedule ?? null;
  const take = useMutation({
    mutationFn: (body: { targetId?: string }) => api<BackupView>(databaseApi(database, "/backups"), { method: "POST", body }),
    onSuccess: (b) => {
      qc.setQueryData<BackupView[]>(keys.backups(database), (list) => [b, ...(list ?? []).filter((x) => x.id !== b.id)]);
      return qc.invalidateQueries({ queryKey: keys.backups(database) });
    },
    onError: (err) =>
      setErrors(
        err instanceof ApiError && err.field === "targetId" && !scheduled
          ? { targetId: bareMessage(err.message, err.field) }
          : { form: err instanceof ApiError ? err.message : "could not start the backup" },
      ),
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    if (scheduled) return take.mutate({});
    if (targetId === "") return setErrors({ targetId: "choose a backup target" });
    take.mutate({ targetId });
  }

  const targetName = targets?.find((t) => t.id === scheduled?.targetId)?.name;
  return (
    <form className="inline" onSubmit={submit} aria-label="Back up now" noValidate>
      {scheduled ? (
        <span className="muted">To the schedule&apos;s target{targetName ? `, ${targetName}` : ""}.</span>
      ) : (
        <Field id="backup-now-target" label="Backup target" error={errors.targetId}>
          {(a) => (
            <select {...a} value={targetId} onChange={(e) => setTargetId(e.target.value)}>
              <option value="">Choose a backup target</option>
              {(targets ?? []).map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <button type="submit" disabled={take.isPending || !d.data}>
        Back up now
      </button>
      <FormMessages error={errors.form} />
    </form>
  );
}

function BackupRow({ database, backup: b, selected, onRestore }: { database: Scoped; backup: BackupView; selected: boolean; onRestore: () => void }) {
  const qc = useQueryClient();
  const badge = backupBadge(b);
  const detail = backupDetail(b);
  const verify = useMutation({
    mutationFn: () => api<BackupView>(databaseApi(database, `/backups/${encodeURIComponent(b.id)}/verify`), { method: "POST" }),
    onSuccess: () => {
      // Shown as verifying until the worker says otherwise, so the table polls every second meanwhile.
      qc.setQueryData<BackupView[]>(keys.backups(database), (list) => list?.map((x) => (x.id === b.id ? { ...x, step: "verifying", message: "waiting for the worker" } : x)));
    },
  });
  const readable = backupReadable(b) && b.step === null;
  const time = b.startedAt ?? b.createdAt;
  return (
    <tr className={selected ? "selected" : undefined} data-testid={`backup-${b.id}`}>
      <td>
        <Timestamp iso={time} />
      </td>
      <td>{b.trigger}</td>
      <td className="nowrap">{formatBytes(b.sizeBytes)}</td>
      <td className="nowrap">{backupDuration(b)}</td>
      <td>{b.sha256 ? <Sha256 sha={b.sha256} /> : "—"}</td>
      <td>
        <span className={`badge ${badge.className}`} data-testid="backup-status">
          {badge.label}
        </span>
        {detail && <div className="muted message">{detail}</div>}
        <Alert inline error={verify.error} />
      </td>
      <td>
        <span className="inline nowrap">
          <button type="button" className="secondary" disabled={!readable || verify.isPending} onClick={() => verify.mutate()}>
            Verify again
          </button>
          <button type="button" className="secondary" disabled={!readable} onClick={onRestore}>
            Restore…
          </button>
        </span>
      </td>
    </tr>
  );
}

/** The first 12 hex digits, the whole digest on hover, and a button that copies it (or, where the clipboard is closed, shows it whole). */
function Sha256({ sha }: { sha: string }) {
  const [copied, setCopied] = useState<"yes" | "no" | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(sha);
      setCopied("yes");
    } catch {
      setCopied("no");
    }
  }
  return (
    <span className="inline">
      <code className="mono nowrap" title={sha} data-sha256={sha}>
        {copied === "no" ? sha : shortSha(sha)}
      </code>
      {copied !== "no" && (
        <button type="button" className="link" onClick={() => void copy()} aria-label="Copy the full SHA-256">
          {copied === "yes" ? "copied" : "copy"}
        </button>
      )}
    </span>
  );
}
