"use client";
import { useNotificationDeliveries } from "@/lib/settings-queries";
import type { DeliveryView, NotificationChannelItem } from "@/lib/types";
import { ListTable } from "./list-card";
import { Timestamp } from "./timestamp";

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
