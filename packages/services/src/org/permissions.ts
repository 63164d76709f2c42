import { LevelrailError } from "@levelrail/spec/errors";
import type { Actor } from "@levelrail/auth";
import { sessionRefusal } from "../context";
import { type Membership, type Role, roleRank } from "@levelrail/spec/roles";

/**
 * Who may do what (docs/operating/teams-and-sso.md#roles): every action a verb performs, with the weakest role that may.
 * The one decision point, deny by default: an action this table does not name is refused for
 * every role. A verb names its action and asks `authorize` after it found its target (so anyone who
 * is not a member still gets the 404 of something that does not exist), before it writes anything.
 */
export const PERMISSIONS = {
  // The organization and its settings
  "org.read": "viewer",
  "org.delete": "owner",
  "quota.read": "viewer",
  "member.read": "viewer",
  "member.manage": "admin",
  "invitation.manage": "admin",
  "audit.read": "admin",
  // Sign-in security: require a second factor, reset a member's, sign a member out everywhere
  "orgSecurity.manage": "owner",
  // Single sign-on is ownership: its group map can make owners.
  "sso.read": "owner",
  "sso.write": "owner",
  "orgEnv.read": "viewer",
  "orgEnv.write": "developer",
  "backupTarget.read": "viewer",
  "backupTarget.write": "admin",
  "registryCredential.read": "viewer",
  "registryCredential.write": "admin",
  // Git deploy keys and tokens (docs/operating/git-builds-and-previews.md), like registry logins
  "gitCredential.read": "viewer",
  "gitCredential.write": "admin",
  "notificationChannel.read": "viewer",
  "notificationChannel.write": "admin",
  // Projects and environments
  "project.read": "viewer",
  "project.create": "admin",
  "project.delete": "admin",
  "projectEnv.read": "viewer",
  "projectEnv.write": "developer",
  "environment.read": "viewer",
  "environment.create": "developer",
  "environment.delete": "admin",
  "environmentEnv.read": "viewer",
  "environmentEnv.write": "developer",
  // Inside an environment
  "app.read": "viewer",
  "app.write": "developer",
  "service.read": "viewer",
  "service.write": "developer",
  "service.deploy": "developer",
  // Builds of a git-sourced service: read them and their logs; build now and cancel (a build deploys).
  "build.read": "viewer",
  "build.write": "developer",
  "secret.read": "viewer",
  "secret.write": "developer",
  "log.read": "viewer",
  "database.read": "viewer",
  "database.write": "developer",
  "backup.read": "viewer",
  "backup.write": "developer",
  "database.restore": "developer",
  "metrics.read": "viewer",
  // The environment as a spec (docs/operating/projects-environments-spec.md#config-as-code-export-diff-apply): apply changes what each object's own action allows
  "spec.read": "viewer",
  "spec.apply": "developer",
  // Previews of pull requests (docs/operating/git-builds-and-previews.md#previews-of-pull-requests): their settings make the worker create and delete environments
  "preview.read": "viewer",
  "preview.write": "admin",
  // The installation's nodes: no organization's own. Any member of a whole organization reads their
  // names and state; changing them (drain, pause, labels) is INSTALLATION_ACTIONS', never a role's.
  "node.read": "viewer",
} as const satisfies Record<string, Role>;

/**
 * What belongs to the installation rather than to one organization: no organization role allows
 * these, however high; only an installation administrator (`levelrail admin grant`), checked by
 * `authorizeInstallation`. Quotas are changed on the host only (`levelrail quota set`), so the API has
 * no action for them.
 */
export const INSTALLATION_ACTIONS = {
  // Drain, pause, activate and label a node: the worker applies it to the swarm
  "node.write": "changing the installation's nodes",
} as const;

export type InstallationAction = keyof typeof INSTALLATION_ACTIONS;

/**
 * A read-only API token changes nothing, not even the caller's own things (their sessions, their
 * memberships, an invitation, their tokens): every route but a read refuses it (403 saying why), and
 * the verbs that change the caller's own things ask this too. `doing`: what was refused.
 */
export function refuseReadOnly(actor: { readOnly?: boolean }, doing: string): void {
  if (actor.readOnly !== true) return;
  throw new LevelrailError("forbidden", `a read-only API token changes nothing (${doing}): use a token that is not read-only, or sign in`);
}

/** Is `action` one only an installation administrator may do? */
export const isInstallationAction = (action: string): action is InstallationAction => Object.hasOwn(INSTALLATION_ACTIONS, action);

/**
 * Throws the 403 naming who may, unless the caller is an installation administrator (never through a
 * read-only token: `actorFor` does not make one).
 */
export function authorizeInstallation(ctx: { actor: { installationAdmin?: boolean } }, action: InstallationAction): void {
  if (ctx.actor.installationAdmin === true) return;
  throw new LevelrailError("forbidden", `${INSTALLATION_ACTIONS[action]} needs an installation administrator (levelrail admin grant --email E on the host); no organization role allows it`);
}

export type Action = keyof typeof PERMISSIONS;

/** The weakest role that may do `action`, or null: the table does not name it, so nobody may. */
export function requiredRole(action: string): Role | null {
  return Object.hasOwn(PERMISSIONS, action) ? PERMISSIONS[action as Action] : null;
}

/** May `role` do `action`? Deny by default. */
export function allows(role: Role, action: string): boolean {
  const needed = requiredRole(action);
  return needed !== null && roleRank(role) >= roleRank(needed);
}

/** Where an action lands: an organization, and the project inside it (null: the organization itself). */
export interface Target {
  orgId: string;
  projectId?: string | null;
}

/**
 * The decision for one membership list: `not_found` for anyone who is not a member of the target's
 * organization, or whose role holds on another project only (they see nothing else, as if it did
 * not exist); `forbidden` naming the role that would do for a member whose role is too weak.
 * `orgIds` are the organizations the caller belongs to right now (the actor's), so a membership list
 * that outlived a removal grants nothing.
 */
export function decide(memberships: readonly Membership[], orgIds: readonly string[], action: string, target: Target): "ok" | LevelrailError {
  const m = orgIds.includes(target.orgId) ? memberships.find((x) => x.orgId === target.orgId) : undefined;
  // The very answer `orgOf` gives an organization id that names nothing.
  const none = () => new LevelrailError("not_found", "organization not found", { field: "orgId" });
  if (!m) return none();
  if (m.projectId !== null && m.projectId !== (target.projectId ?? null)) return none();
  const needed = requiredRole(action);
  if (needed === null) return new LevelrailError("forbidden", `${action} is not allowed to anyone`);
  if (roleRank(m.role) < roleRank(needed)) {
    return new LevelrailError("forbidden", `needs the ${needed} role${m.projectId === null ? "" : " on this project"}; you are a ${m.role}`);
  }
  return "ok";
}

/**
 * May a member holding `actorRole` give `targetRole` to someone (or take it from them)? An owner
 * gives any role; an admin any but owner; a developer or viewer none. A role change must pass for
 * both the member's current role and the new one, so an admin can neither make an owner nor demote
 * one, and nobody raises themselves above their own role.
 */
export function canAssign(actorRole: Role, targetRole: Role): boolean {
  if (actorRole === "owner") return true;
  if (actorRole === "admin") return targetRole !== "owner";
  return false;
}

/** `canAssign` as the 403 a verb throws: it names the role that would do. */
export function assertCanAssign(actorRole: Role, targetRole: Role): void {
  if (canAssign(actorRole, targetRole)) return;
  const needed: Role = targetRole === "owner" ? "owner" : "admin";
  throw new LevelrailError("forbidden", `giving or taking the ${targetRole} role needs the ${needed} role; you are a ${actorRole}`);
}

/**
 * Throws the 404 or 403 `decide` answers, or returns: the caller may do `action` on `target`.
 * `notFound`: the 404 the verb answers for a target that does not exist, so one the caller may not
 * see answers exactly alike.
 */
export function authorize(ctx: { actor: Pick<Actor, "orgIds" | "memberships" | "ssoSessionRefusedBy" | "ssoRequiredBy" | "secondFactorRequiredBy"> }, action: Action, target: Target, notFound?: LevelrailError): void {
  const d = decide(ctx.actor.memberships, ctx.actor.orgIds, action, target);
  if (d === "ok") return;
  // An organization of the caller's that this session may not act in: 403 saying how to sign in for it.
  if (d.code === "not_found") {
    const refused = sessionRefusal(ctx.actor, target.orgId);
    if (refused) throw refused;
  }
  throw d.code === "not_found" && notFound ? notFound : d;
}

/** The caller's role in `orgId` (and the project it is limited to), or null for anyone who is not a member. */
export function membershipIn(ctx: { actor: { orgIds: string[]; memberships: Membership[] } }, orgId: string): Membership | null {
  return ctx.actor.orgIds.includes(orgId) ? (ctx.actor.memberships.find((m) => m.orgId === orgId) ?? null) : null;
}
