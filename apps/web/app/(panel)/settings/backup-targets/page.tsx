import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { listBackupTargets } from "@levelrail/services/config/backup-targets";
import { BackupTargets } from "@/components/org-config";
import { keys } from "@/lib/keys";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Backup targets · Levelrail" };

/** Settings › Backup targets: S3-compatible storage, the secret key write-only. */
export default async function BackupTargetsPage() {
  const ctx = await requireCtx();
  const qc = new QueryClient();
  await qc.prefetchQuery({ queryKey: keys.backupTargets(), queryFn: () => listBackupTargets({ ctx }) });
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <h1>Backup targets</h1>
      <BackupTargets />
    </HydrationBoundary>
  );
}
