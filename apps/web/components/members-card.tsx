"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { MANAGER_ROLES, MEMBER_ROLES } from "@levelrail/spec/lists";
import type { MemberView } from "@levelrail/services/org/members";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import type { OrgItem } from "@/lib/types";
import { Alert } from "./alert";
import { InvitationsCard } from "./invitations-card";
import { ACTIONS, ListCard } from "./list-card";
import { Timestamp } from "./timestamp";

const enc = encodeURIComponent;

export const useMembers = (orgId: string) => useQuery({ queryKey: keys.members(orgId), queryFn: () => api<MemberView[]>(`/orgs/${enc(orgId)}/members`) });

/**
 * The organization picker (when there are several), its members (for owners with each one's second
 * factor, its reset and a sign-out everywhere), and for owners and admins its invitations.
 */
export function MembersSettings({ orgs, org }: { orgs: OrgItem[]; org: OrgItem }) {
  const router = useRouter();
  const members = useMembers(org.id);
  const myRole = members.data?.find((m) => m.you)?.role;
  const manager = myRole !== undefined && MANAGER_ROLES.includes(myRole);
  // Each member's second factor is answered to those who may manage sign-in security (owners) only.
  const signIn = members.data?.some((m) => m.twoFactorEnabled !== null) ?? false;
  return (
    <>
      {orgs.length > 1 && (
        <label className="field">
          <span>Organization</span>
          <select value={org.id} onChange={(e) => router.push(`/settings/members?org=${enc(e.target.value)}`)}>
            {orgs.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <ListCard
        id="members"
        title={`Members of ${org.name}`}
        before={
          <p className="muted">
            Owners manage everything, members and the organization itself; admins everything but ownership; developers deploy and
            operate; viewers read. {myRole && <>You are {myRole === "owner" || myRole === "admin" ? "an" : "a"} {myRole}.</>}
          </p>
        }
        source={members}
        loading="Loading…"
        empty="No members."
        headers={signIn ? ["Email", "Name", "Role", "Second factor", "Joined", ACTIONS] : ["Email", "Name", "Role", "Joined", ACTIONS]}
        rowKey={(m) => m.userId}
        row={(m) => <MemberRow orgId={org.id} member={m} manager={manager} myRole={myRole} signIn={signIn} />}
      />
      {manager && <InvitationsCard org={org} myRole={myRole} />}
    </>
  );
}

function MemberRow({
  orgId,
  member: m,
  manager,
  myRole,
  signIn,
}: {
  orgId: string;
  member: MemberView;
  manager: boolean;
  myRole: string | undefined;
  /** The caller manages sign-in security (owners): the member's second factor, its reset and a sign-out everywhere. */
  signIn: boolean;
}) {
  const qc = useQueryClient();
  const router = useRouter();
  const path = `/orgs/${enc(orgId)}/members/${enc(m.userId)}`;
  const refresh = () => qc.invalidateQueries({ queryKey: keys.members(orgId) });
  const change = useMutation({
    mutationFn: (role: string) => api<MemberView>(path, { method: "PATCH", body: { role } }),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: () => api(path, { method: "DELETE" }),
    onSuccess: async () => {
      if (m.you) {
        // Leaving: nothing of this organization is ours to show any more.
        await qc.invalidateQueries();
        router.replace("/");
        router.refresh();
        return;
      }
      await refresh();
    },
  });
  // Only an owner hands out or takes away ownership; nobody makes themselves owner.
  const canEdit = manager && (myRole === "owner" || m.role !== "owner");
  const choices = MEMBER_ROLES.filter((r) => r !== "owner" || (myRole === "owner" && !m.you) || m.role === "owner");
  return (
    <tr>
      <td>
        {m.email}
        {m.you && <span className="muted"> (you)</span>}
      </td>
      <td>{m.name}</td>
      <td>
        {canEdit ? (
          <select
            aria-label={`Role of ${m.email}`}
            value={m.role}
            disabled={change.isPending}
            onChange={(e) => change.mutate(e.target.value)}
          >
            {!(MEMBER_ROLES as readonly string[]).includes(m.role) && <option value={m.role}>{m.role}</option>}
            {choices.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        ) : (
          m.role
        )}
      </td>
      {signIn && <td>{m.twoFactorEnabled ? "on" : "off"}</td>}
      <td>
        <Timestamp iso={m.joinedAt} />
      </td>
      <td className="inline">
        {(m.you || canEdit) && (
          <button
            type="button"
            className="secondary"
            onClick={() => remove.mutate()}
            disabled={remove.isPending}
            aria-label={m.you ? "Leave the organization" : `Remove ${m.email}`}
          >
            {m.you ? "Leave" : "Remove"}
          </button>
        )}
        {signIn && <SignInActions orgId={orgId} member={m} />}
        <Alert inline error={change.error ?? remove.error} />
      </td>
    </tr>
  );
}

/** An owner's actions on a member's sign-in: reset their second factor (a lost device), sign them out everywhere. */
function SignInActions({ orgId, member: m }: { orgId: string; member: MemberView }) {
  const qc = useQueryClient();
  const path = `/orgs/${enc(orgId)}/members/${enc(m.userId)}`;
  const reset = useMutation({
    mutationFn: () => api(`${path}/two-factor`, { method: "DELETE" }),
    onSettled: () => qc.invalidateQueries({ queryKey: keys.members(orgId) }),
  });
  const signOut = useMutation({ mutationFn: () => api<{ sessionsEnded: number; sessionsKept: number }>(`${path}/sessions`, { method: "DELETE" }) });
  return (
    <>
      {m.twoFactorEnabled && (
        <button type="button" className="secondary" disabled={reset.isPending} onClick={() => reset.mutate()} aria-label={`Reset second factor of ${m.email}`}>
          Reset second factor
        </button>
      )}
      <button type="button" className="secondary" disabled={signOut.isPending} onClick={() => signOut.mutate()} aria-label={`Sign out ${m.email} everywhere`}>
        Sign out everywhere
      </button>
      {signOut.isSuccess && (
        <span role="status">
          {signOut.data.sessionsKept === 0
            ? "Signed out everywhere."
            : `Signed out of this organization (${signOut.data.sessionsEnded} ended); ${signOut.data.sessionsKept} session${signOut.data.sessionsKept === 1 ? "" : "s"} that reach their other organizations too kept: remove them from this organization, or ask an installation administrator.`}
        </span>
      )}
      <Alert inline error={reset.error ?? signOut.error} />
    </>
  );
}
