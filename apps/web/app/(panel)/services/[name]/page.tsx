import { redirect } from "next/navigation";
import { environmentNaming } from "@/lib/environment";
import { serviceHref } from "@/lib/paths";
import { requireCtx } from "@/lib/session";

type Props = { params: Promise<{ name: string }> };

/** The page from before environments: on to the service's page in its environment (the current one first), or the dashboard. */
export default async function OldServicePage({ params }: Props) {
  const { name } = await params;
  const envId = await environmentNaming(await requireCtx(), "service", name);
  redirect(envId ? serviceHref({ environmentId: envId, name }) : "/");
}
