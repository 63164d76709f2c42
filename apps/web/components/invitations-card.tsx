"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { MEMBER_ROLES } from "@levelrail/spec/lists";
import type { InvitationView, InviteResult } from "@levelrail/services/org/invitations";
import { ApiError, api } from "@/lib/fetcher";
import { type FieldErrors, bareMessage, topField } from "@/lib/form";
import { keys } from "@/lib/keys";
import type { OrgItem } from "@/lib/types";
import { Alert } from "./alert";
import { Field } from "./field";
import { FormMessages } from "./form-messages";
import { ACTIONS, ListCard } from "./list-card";
import { Timestamp } from "./timestamp";

const enc = encodeURIComponent;

/** The organization's pending invitations, revocable, and the form that invites by email. */
export function InvitationsCard({ org, myRole }: { org: OrgItem; myRole: string | undefined }) {
  const invitations = useQuery({ queryKey: keys.invitations(org.id), queryFn: () => api<InvitationView[]>(`/orgs/${enc(org.id)}/invitations`) });
  return (
    <ListCard
      id="invitations"
      title="Pending invitations"
      before={<p className="muted">Each link works once, for 7 days. Revoking one stops its link at once.</p>}
      source={invitations}
      loading="Loading…"
      empty="No pending invitations."
      headers={["Email", "Role", "Invited by", "Expires", ACTIONS]}
      rowKey={(i) => i.id}
      row={(i) => <InvitationRow orgId={org.id} invitation={i} />}
    >
      <InviteForm org={org} myRole={myRole} />
    </ListCard>
  );
}

function InvitationRow({ orgId, invitation: i }: { orgId: string; invitation: InvitationView }) {
  const qc = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => api(`/orgs/${enc(orgId)}/invitations/${enc(i.id)}`, { method: "DELETE" }),
    onSettled: () => qc.invalidateQueries({ queryKey: keys.invitations(orgId) }),
  });
  return (
    <tr>
      <td>{i.email}</td>
      <td>{i.role}</td>
      <td>{i.invitedBy ?? "—"}</td>
      <td>
        <Timestamp iso={i.expiresAt} />
      </td>
      <td>
        <button type="button" className="secondary" onClick={() => revoke.mutate()} disabled={revoke.isPending} aria-label={`Revoke the invitation of ${i.email}`}>
          Revoke
        </button>
        <Alert inline error={revoke.error} />
      </td>
    </tr>
  );
}

function InviteForm({ org, myRole }: { org: OrgItem; myRole: string | undefined }) {
  const qc = useQueryClient();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState("developer");
  const [errors, setErrors] = useState<FieldErrors>({});
  const [result, setResult] = useState<InviteResult | null>(null);
  const invite = useMutation({
    mutationFn: (input: unknown) => api<InviteResult>(`/orgs/${enc(org.id)}/invitations`, { method: "POST", body: input }),
    onSuccess: async (r) => {
      setEmail("");
      setResult(r);
      await qc.invalidateQueries({ queryKey: keys.invitations(org.id) });
    },
    onError: (err) => setErrors(err instanceof ApiError ? { [topField(err.field)]: bareMessage(err.message, err.field) } : { form: "could not invite" }),
  });

  async function submit(e: FormEvent) {
    e.preventDefault();
    setResult(null);
    // The API's own schema and the placing of its issues, loaded on submit: zod stays out of the page's first load.
    const [{ inviteInput }, { fieldErrors }] = await Promise.all([import("@levelrail/spec/members"), import("@/lib/zod-errors")]);
    const parsed = inviteInput.safeParse({ email: email.trim(), role });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    invite.mutate(parsed.data);
  }

  return (
    <form className="stack" onSubmit={submit} aria-label="Invite a member" noValidate>
      <h3>Invite a member</h3>
      <div className="inline">
        <Field id="invite-email" label="Email" error={errors.email}>
          {(a11y) => <input {...a11y} type="email" value={email} onChange={(e) => setEmail(e.target.value)} placeholder="name@example.com" />}
        </Field>
        <Field id="invite-role" label="Role" error={errors.role}>
          {(a11y) => (
            <select {...a11y} value={role} onChange={(e) => setRole(e.target.value)}>
              {MEMBER_ROLES.filter((r) => r !== "owner" || myRole === "owner").map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <FormMessages error={errors.form} done={result?.emailed ? `Invitation emailed to ${result.invitation.email}.` : undefined} />
      {result && !result.emailed && result.link && (
        <div className="warning stack" role="status">
          <p>
            {result.emailError ? `The email to ${result.invitation.email} could not be sent (${result.emailError}). ` : ""}
            Send this link to {result.invitation.email} yourself; it is shown only now, works once and for 7 days:
          </p>
          <input aria-label="Invitation link" className="mono" readOnly value={result.link} onFocus={(e) => e.currentTarget.select()} />
        </div>
      )}
      <button type="submit" disabled={invite.isPending}>
        {invite.isPending ? "Inviting…" : "Invite"}
      </button>
    </form>
  );
}
