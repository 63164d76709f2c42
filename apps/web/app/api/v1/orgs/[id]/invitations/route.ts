import { inviteMember, listInvitations } from "@levelrail/services/org/invitations";
import { created, json, route } from "@/lib/api";
import { server } from "@/lib/server";

type Params = { id: string };

/** Pending invitations, newest first (owner or admin); never a link or a token. */
export const GET = route<Params>(async ({ ctx, params }) => json(await listInvitations({ ctx, orgId: params.id })));

/**
 * `{"email", "role"}` (owner or admin): a single-use link valid 7 days, mailed through
 * LEVELRAIL_SMTP_URL when it is set, otherwise answered once as `link`. A member's address is a 409.
 */
export const POST = route<Params>(async ({ ctx, params, body }) => {
  const { publicUrl, mailer } = server();
  return created(await inviteMember({ ctx, orgId: params.id, input: await body(), delivery: { publicUrl, mailer } }));
});
