"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { NOTIFICATION_EVENT_LABELS, type NotificationEvent } from "@levelrail/spec/notifications";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { useNotificationChannels, useNotificationDeliveries } from "@/lib/queries";
import type { DeliveryView, NotificationChannelItem } from "@/lib/types";
import { NotificationChannelForm } from "./notification-channel-form";
import { Timestamp } from "./timestamp";

const enc = encodeURIComponent;
const targetOf = (c: NotificationChannelItem) => (c.kind === "webhook" ? `${c.url}${c.format === "slack" ? " (Slack)" : ""}` : `${c.host}:${c.port} → ${c.to.join(", ")}`);

/** The organization's notification channels: list, add, "Send test", the delivery log, delete. */
export function NotificationsCard() {
  const channels = useNotificationChannels();
  return (
    <section className="card stack" aria-labelledby="notifications-title">
      <h2 id="notifications-title">Notifications</h2>
      <p className="muted">
        Webhooks (signed with <code>X-Levelrail-Signature</code>) and email, for the events each channel picks. Failed deliveries are retried with
        backoff; a notification never carries a secret value.
      </p>
      {channels.isError && (
        <p className="error" role="alert">
          {channels.error.message}
        </p>
      )}
      {channels.data?.length === 0 && <p className="muted">No channels yet.</p>}
      {channels.data && channels.data.length > 0 && (
        <table aria-labelledby="notifications-title">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Target</th>
              <th scope="col">Events</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {channels.data.map((c) => (
              <ChannelRow key={c.id} channel={c} />
            ))}
          </tbody>
        </table>
      )}
      <NotificationChannelForm />
    </section>
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
            <small className="error" role="alert">
              Test to {c.name} failed: {test.data.lastError}
            </small>
          )}
          {(test.isError || remove.isError) && (
            <small className="error" role="alert">
              {(test.error ?? remove.error)?.message}
            </small>
          )}
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
  if (deliveries.isError) return <p className="error">{deliveries.error.message}</p>;
  if (!deliveries.data) return <p className="muted">Loading…</p>;
  if (deliveries.data.length === 0) return <p className="muted">Nothing sent to {channel.name} yet.</p>;
  return (
    <table aria-label={`Delivery log of ${channel.name}`}>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Event</th>
          <th scope="col">Status</th>
          <th scope="col">Attempts</th>
          <th scope="col">Last error</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.data.map((d) => (
          <tr key={d.id}>
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
        ))}
      </tbody>
    </table>
  );
}
