"use client";
import { type ReactNode, Suspense, lazy } from "react";
import type { NotificationEvent } from "@levelrail/spec/lists";
import { useNotificationChannels } from "@/lib/settings-queries";
import { ACTIONS, ListCard } from "./list-card";
import { NotificationChannelForm } from "./notification-channel-form";

/**
 * A channel's row (its Send test, Deliveries and Delete), in its own chunk: only an organization
 * with channels shows rows; the server renders them in the page, and their script follows.
 */
const ChannelRow = lazy(() => import("./channel-row").then((m) => ({ default: m.ChannelRow })));

/**
 * The organization's notification channels: list, add, "Send test", the delivery log, delete.
 * `eventLabels` (NOTIFICATION_EVENT_LABELS, in NOTIFICATION_EVENTS' order) and `intro` (the card's
 * text) come from the server page, so neither the lists module nor the text is in its JavaScript.
 */
export function NotificationsCard({ eventLabels, intro }: { eventLabels: Record<NotificationEvent, string>; intro: ReactNode }) {
  const channels = useNotificationChannels();
  return (
    <ListCard
      id="notifications"
      title="Notifications"
      before={intro}
      source={channels}
      empty="No channels yet."
      headers={["Name", "Kind", "Target", "Events", ACTIONS]}
      rowKey={(c) => c.id}
      row={(c) => (
        <Suspense fallback={null}>
          <ChannelRow channel={c} eventLabels={eventLabels} />
        </Suspense>
      )}
    >
      <NotificationChannelForm eventLabels={eventLabels} />
    </ListCard>
  );
}
