"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Suspense, lazy, useState } from "react";
import type { NotificationEvent } from "@levelrail/spec/lists";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import type { DeliveryView, NotificationChannelItem } from "@/lib/types";
import { Alert } from "./alert";
import { TestResult } from "./channel-test-result";

/** A channel's delivery log, in its own chunk: it opens from the channel's "Deliveries" button. */
const DeliveryLog = lazy(() => import("./notification-deliveries").then((m) => ({ default: m.DeliveryLog })));

const enc = encodeURIComponent;
const targetOf = (c: NotificationChannelItem) => (c.kind === "webhook" ? `${c.url}${c.format === "slack" ? " (Slack)" : ""}` : `${c.host}:${c.port} → ${c.to.join(", ")}`);

/** One notification channel (NotificationsCard): what it sends where, "Send test" and its outcome, its delivery log, Delete. */
export function ChannelRow({ channel: c, eventLabels }: { channel: NotificationChannelItem; eventLabels: Record<NotificationEvent, string> }) {
  const qc = useQueryClient();
  const [log, setLog] = useState(false);
  const test = useMutation({
    mutationFn: () => api<DeliveryView>(`/notification-channels/${enc(c.id)}/test`, { method: "POST" }),
    onSettled: () => qc.invalidateQueries({ queryKey: keys.notificationDeliveries(c.id) }),
  });
  const remove = useMutation({
    mutationFn: () => api(`/notification-channels/${enc(c.id)}`, { method: "DELETE" }),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.notificationChannels() }),
  });
  return (
    <>
      <tr>
        <td>{c.name}</td>
        <td>{c.kind}</td>
        <td className="mono">{targetOf(c)}</td>
        <td>{c.events.map((e) => eventLabels[e as NotificationEvent] ?? e).join(", ")}</td>
        <td>
          <span className="inline">
            <button type="button" onClick={() => test.mutate()} disabled={test.isPending} aria-label={`Send test to ${c.name}`}>
              {test.isPending ? "Sending…" : "Send test"}
            </button>
            <button type="button" className="secondary" onClick={() => setLog((v) => !v)} aria-expanded={log} aria-label={`Deliveries of ${c.name}`}>
              Deliveries
            </button>
            <button type="button" className="secondary" onClick={() => remove.mutate()} disabled={remove.isPending} aria-label={`Delete channel ${c.name}`}>
              Delete
            </button>
          </span>
          {test.data && <TestResult name={c.name} delivery={test.data} />}
          <Alert inline error={test.error ?? remove.error} />
        </td>
      </tr>
      {log && (
        <tr>
          <td colSpan={5}>
            <Suspense fallback={<p className="muted">Loading…</p>}>
              <DeliveryLog channel={c} />
            </Suspense>
          </td>
        </tr>
      )}
    </>
  );
}
