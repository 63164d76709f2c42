import { checkDomainsNow } from "@levelrail/services/domain/check";
import { accepted, route } from "@/lib/api";

/** "Check now": the worker looks the service's ownership records up at once. */
export const POST = route<{ envId: string; service: string }>(async ({ ctx, params }) => accepted(await checkDomainsNow({ ctx, envId: params.envId, name: params.service })));
