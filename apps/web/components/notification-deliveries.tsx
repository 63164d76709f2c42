"use client";
import { useQuery } from "@tanstack/react-query";
import { api } from "@/lib/fetcher";
import { FLEET_INTERVAL_MS, LIVE_INTERVAL_MS, keys } from "@/lib/keys";
import type { DeliveryView, NotificationChannelItem } from "@/lib/types";
import { ListTable } from "./list-card";
import { Timestamp } from "./timestamp";

/** A channel's delivery log, newest first; polled while a delivery is pending (retries show as they happen). */
const useNotificationDeliveries = (channelId: string) =>
  useQuery({
    queryKey: keys.notificationDeliveries(channelId),
    queryFn: () => api<DeliveryView[]>(`/notification-channels/${encodeURIComponent(channelId)}/deliveries?limit=20`),
    refetchInterval: (q) => (q.state.data?.some((d) => d.status === "pending") ? LIVE_INTERVAL_MS * 2 : FLEET_INTERVAL_MS),
  });

/** The last deliveries to a channel (NotificationsCard's "Deliveries"), polled while one is pending. */
export function DeliveryLog({ channel }: { channel: NotificationChannelItem }) {
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
