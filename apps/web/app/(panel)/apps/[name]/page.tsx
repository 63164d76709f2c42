import { redirect } from "next/navigation";
import { environmentNaming } from "@/lib/environment";
import { appHref } from "@/lib/paths";
import { requireCtx } from "@/lib/session";

type Props = { params: Promise<{ name: string }> };

/** The page from before environments: on to the app's page in its environment (the current one first), or the dashboard. */
export default async function OldAppPage({ params }: Props) {
  const { name } = await params;
  const envId = await environmentNaming(await requireCtx(), "app", name);
  redirect(envId ? appHref({ environmentId: envId, name }) : "/");
}
