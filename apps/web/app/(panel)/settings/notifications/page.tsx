import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { listChannels } from "@levelrail/services/notifications/channels";
import { NOTIFICATION_EVENT_LABELS } from "@levelrail/spec/lists";
import { NotificationsCard } from "@/components/notifications-card";
import { NotificationsIntro } from "@/components/settings-text";
import { keys } from "@/lib/keys";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Notifications · Levelrail" };

/** Settings › Notifications: the organization's channels, each one's test and delivery log. */
export default async function NotificationsPage() {
  const ctx = await requireCtx();
  const qc = new QueryClient();
  await qc.prefetchQuery({ queryKey: keys.notificationChannels(), queryFn: () => listChannels({ ctx }) });
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <h1>Notifications</h1>
      {/* The labels and the text reach the client card as props: not in the page's JavaScript. */}
      <NotificationsCard eventLabels={NOTIFICATION_EVENT_LABELS} intro={<NotificationsIntro />} />
    </HydrationBoundary>
  );
}
