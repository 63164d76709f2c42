"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { NOTIFICATION_EVENT_LABELS, type NotificationEvent } from "@levelrail/spec/lists";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { useNotificationChannels, useNotificationDeliveries } from "@/lib/queries";
import type { DeliveryView, NotificationChannelItem } from "@/lib/types";
import { Alert } from "./alert";
import { ACTIONS, ListCard, ListTable } from "./list-card";
import { NotificationChannelForm } from "./notification-channel-form";
import { Timestamp } from "./timestamp";

const enc = encodeURIComponent;
const targetOf = (c: NotificationChannelItem) => (c.kind === "webhook" ? `${c.url}${c.format === "slack" ? " (Slack)" : ""}` : `${c.host}:${c.port} → ${c.to.join(", ")}`);

/** The organization's notification channels: list, add, "Send test", the delivery log, delete. */
export function NotificationsCard() {
  const channels = useNotificationChannels();
  return (
    <ListCard
      id="notifications"
      title="Notifications"
      before={
        <p className="muted">
          Webhooks (signed with <code>X-Levelrail-Signature</code>) and email, for the events each channel picks. Failed deliveries are retried with
          backoff; a notification never carries a secret value.
        </p>
      }
      source={channels}
      empty="No channels yet."
      headers={["Name", "Kind", "Target", "Events", ACTIONS]}
      rowKey={(c) => c.id}
      row={(c) => <ChannelRow channel={c} />}
    >
      <NotificationChannelForm />
    </ListCard>
  );
}

function ChannelRow({ channel: c }: { channel: NotificationChannelItem }) {
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
        <td>{c.events.map((e) => NOTIFICATION_EVENT_LABELS[e as NotificationEvent] ?? e).join(", ")}</td>
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
          {test.data?.status === "delivered" && (
            <small className="success" role="status">
              Test delivered to {c.name}
            </small>
          )}
          {test.data && test.data.status !== "delivered" && (
            <Alert inline>
              Test to {c.name} failed: {test.data.lastError}
            </Alert>
          )}
          <Alert inline error={test.error ?? remove.error} />
        </td>
      </tr>
      {log && (
        <tr>
          <td colSpan={5}>
            <DeliveryLog channel={c} />
          </td>
        </tr>
      )}
    </>
  );
}

function DeliveryLog({ channel }: { channel: NotificationChannelItem }) {
  const deliveries = useNotificationDeliveries(channel.id);
  return (
    <ListTable
      label={`Delivery log of ${channel.name}`}
      source={deliveries}
      loading="Loading…"
      empty={`Nothing sent to ${channel.name} yet.`}
      headers={["When", "Event", "Status", "Attempts", "Last error"]}
      rowKey={(d: DeliveryView) => d.id}
      row={(d) => (
        <tr>
          <td>
            <Timestamp iso={d.createdAt} />
          </td>
          <td>{d.event}</td>
          <td>
            {d.status}
            {d.nextAttemptAt && (
              <>
                {" "}
                (next try <Timestamp iso={d.nextAttemptAt} />)
              </>
            )}
          </td>
          <td>{d.attempts}</td>
          <td className="mono">{d.lastError}</td>
        </tr>
      )}
    />
  );
}
