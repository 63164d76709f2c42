import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { listBackupTargets } from "@levelrail/services/config/backup-targets";
import { getDatabase, listBackups } from "@levelrail/services/database/view";
import { BackupScheduleCard } from "@/components/backup-schedule-form";
import { BackupsCard } from "@/components/backups-card";
import { DeleteDatabase, RestoresCard } from "@/components/database-history";
import { ConnectionCard } from "@/components/connection-card";
import { DatabaseStatusCard } from "@/components/database-status";
import { EnvironmentCrumbs } from "@/components/environment-crumbs";
import { environmentOf } from "@/lib/environment";
import { orNotFound } from "@/lib/found";
import { keys } from "@/lib/keys";
import { requireCtx } from "@/lib/session";

type Props = { params: Promise<{ envId: string; name: string }> };

export async function generateMetadata({ params }: Props) {
  const { name } = await params;
  return { title: `${name} · Levelrail` };
}

/** One managed database: status, connection, who attaches it, backups (schedule, now, verify, restore), kept volumes, delete. */
export default async function DatabasePage({ params }: Props) {
  const { envId, name } = await params;
  const ctx = await requireCtx();
  const ref = { environmentId: envId, name };
  const { environment, project, siblings } = await environmentOf(ctx, envId);
  const database = await orNotFound(getDatabase({ ctx, envId, name }));
  const qc = new QueryClient();
  qc.setQueryData(keys.databaseDetail(ref), database);
  qc.setQueryData(keys.environment(envId), environment);
  qc.setQueryData(keys.environments(project.id), siblings);
  await Promise.all([
    qc.prefetchQuery({ queryKey: keys.backups(ref), queryFn: () => listBackups({ ctx, envId, name }) }),
    qc.prefetchQuery({ queryKey: keys.backupTargets(), queryFn: () => listBackupTargets({ ctx }) }),
  ]);
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <EnvironmentCrumbs project={project} environment={environment}>
        databases / {name}
      </EnvironmentCrumbs>
      <h1>{name}</h1>
      <div className="columns">
        <DatabaseStatusCard database={ref} />
        <ConnectionCard database={ref} connection={database.connection} placement={database.placement} />
      </div>
      <BackupScheduleCard database={ref} />
      <BackupsCard database={ref} />
      <RestoresCard database={ref} />
      <DeleteDatabase database={ref} />
    </HydrationBoundary>
  );
}
