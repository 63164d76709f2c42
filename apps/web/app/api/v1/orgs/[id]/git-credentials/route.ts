import { createGitCredential, listGitCredentials } from "@levelrail/services/git/credentials";
import { created, json, route } from "@/lib/api";

type Params = { id: string };

/** The organization's git credentials: deploy keys (their public half shown) and tokens (write-only). */
export const GET = route<Params>(async ({ ctx, params }) => json(await listGitCredentials({ ctx, orgId: params.id })));

/** `{name, kind: "ssh", hosts?}` generates a deploy key; `{name, kind: "token", token, username?, hosts}` seals a token bound to those hosts. */
export const POST = route<Params>(async ({ ctx, params, body }) => created(await createGitCredential({ ctx, orgId: params.id, input: await body() })));
