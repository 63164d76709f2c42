import { HydrationBoundary, QueryClient, dehydrate } from "@tanstack/react-query";
import { listRegistryCredentials } from "@levelrail/services/config/registry-credentials";
import { RegistryCredentials } from "@/components/org-config";
import { keys } from "@/lib/keys";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Registry credentials · Levelrail" };

/** Settings › Registry credentials: private registry logins, the password write-only. */
export default async function RegistryCredentialsPage() {
  const ctx = await requireCtx();
  const qc = new QueryClient();
  await qc.prefetchQuery({ queryKey: keys.registryCredentials(), queryFn: () => listRegistryCredentials({ ctx }) });
  return (
    <HydrationBoundary state={dehydrate(qc)}>
      <h1>Registry credentials</h1>
      <RegistryCredentials />
    </HydrationBoundary>
  );
}
