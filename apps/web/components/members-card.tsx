"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { MANAGER_ROLES, MEMBER_ROLES } from "@levelrail/spec/members";
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

/** The organization picker (when there are several), its members, and for owners and admins its invitations. */
export function MembersSettings({ orgs, org }: { orgs: OrgItem[]; org: OrgItem }) {
  const router = useRouter();
  const members = useMembers(org.id);
  const myRole = members.data?.find((m) => m.you)?.role;
  const manager = myRole !== undefined && MANAGER_ROLES.includes(myRole);
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
        headers={["Email", "Name", "Role", "Joined", ACTIONS]}
        rowKey={(m) => m.userId}
        row={(m) => <MemberRow orgId={org.id} member={m} manager={manager} myRole={myRole} />}
      />
      {manager && <InvitationsCard org={org} myRole={myRole} />}
    </>
  );
}

function MemberRow({ orgId, member: m, manager, myRole }: { orgId: string; member: MemberView; manager: boolean; myRole: string | undefined }) {
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
      <td>
        <Timestamp iso={m.joinedAt} />
      </td>
      <td>
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
        <Alert inline error={change.error ?? remove.error} />
      </td>
    </tr>
  );
}
