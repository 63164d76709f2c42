import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROLES, type Membership, type Role } from "@levelrail/spec/roles";
import { INSTALLATION_ACTIONS, PERMISSIONS, allows, assertCanAssign, authorizeInstallation, canAssign, decide, refuseReadOnly, requiredRole } from "./permissions";

const ORG = "00000000-0000-4000-8000-000000000001";
const PROJECT = "00000000-0000-4000-8000-000000000002";
const OTHER_PROJECT = "00000000-0000-4000-8000-000000000003";
const member = (role: Role, projectId: string | null = null): Membership[] => [{ orgId: ORG, role, projectId }];

/** Every `"x.y"` action string the verbs of packages/services name (in authorize, findEnvironment, findService …). */
function actionsNamedInVerbs(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".ts") && !path.endsWith(".test.ts") && !path.endsWith("permissions.ts")) {
        for (const m of readFileSync(path, "utf8").matchAll(/(?<!action: )"([a-z][A-Za-z]*\.(?:read|write|create|delete|deploy|restore|manage))"/g)) names.add(m[1]!);
      }
    }
  };
  walk(join(import.meta.dirname, ".."));
  return names;
}

describe("the permission table", () => {
  it("gives every action one of the four roles", () => {
    for (const [action, role] of Object.entries(PERMISSIONS)) expect(ROLES, action).toContain(role);
  });

  it("names every action a verb asks for (and each verb's action is in it)", () => {
    const named = actionsNamedInVerbs();
    expect(named.size).toBeGreaterThan(20);
    for (const action of named) expect([...Object.keys(PERMISSIONS), ...Object.keys(INSTALLATION_ACTIONS)], action).toContain(action);
  });

  it("gives no organization role an installation's action (a node change), the owner included: an installation administrator only", () => {
    expect(Object.keys(INSTALLATION_ACTIONS)).toEqual(["node.write"]);
    for (const action of Object.keys(INSTALLATION_ACTIONS)) {
      expect(requiredRole(action), action).toBeNull();
      for (const role of ROLES) expect(allows(role, action), `${role} ${action}`).toBe(false);
    }
    expect(() => authorizeInstallation({ actor: {} }, "node.write")).toThrow(/needs an installation administrator/);
    expect(() => authorizeInstallation({ actor: { installationAdmin: false } }, "node.write")).toThrow(/needs an installation administrator/);
    expect(() => authorizeInstallation({ actor: { installationAdmin: true } }, "node.write")).not.toThrow();
    expect(allows("viewer", "node.read")).toBe(true);
  });

  it("a read-only token changes nothing, saying so", () => {
    expect(() => refuseReadOnly({ readOnly: true }, "ending sessions")).toThrow("a read-only API token changes nothing (ending sessions)");
    expect(() => refuseReadOnly({}, "ending sessions")).not.toThrow();
  });

  it("denies by default: an action it does not name is refused to every role, the owner included", () => {
    for (const action of ["service.explode", "org.transfer", "", "constructor", "__proto__", "toString"]) {
      expect(requiredRole(action), action).toBeNull();
      for (const role of ROLES) expect(allows(role, action), `${role} ${action}`).toBe(false);
      expect(decide(member("owner"), [ORG], action, { orgId: ORG })).toMatchObject({ code: "forbidden" });
    }
  });

  it("follows the roles of docs/operating/teams-and-sso.md: a viewer only reads, a developer deploys but manages no members, targets, credentials or channels, deletes no project", () => {
    for (const action of Object.keys(PERMISSIONS)) {
      if (allows("viewer", action)) expect(action, `viewer may ${action}`).toMatch(/\.read$/);
    }
    for (const a of ["service.deploy", "secret.write", "orgEnv.write", "database.write", "backup.write", "database.restore", "environment.create"]) expect(allows("developer", a), a).toBe(true);
    for (const a of ["member.manage", "invitation.manage", "backupTarget.write", "registryCredential.write", "notificationChannel.write", "project.delete", "environment.delete", "org.delete", "orgSecurity.manage"]) {
      expect(allows("developer", a), a).toBe(false);
    }
    // Owners only: deleting the organization, its sign-in security (require a second factor, reset a member's, sign a member out
    // everywhere), and single sign-on (its group map can make owners).
    const ownersOnly = ["org.delete", "orgSecurity.manage", "sso.read", "sso.write"];
    for (const a of Object.keys(PERMISSIONS)) expect(allows("admin", a), a).toBe(!ownersOnly.includes(a));
    for (const a of Object.keys(PERMISSIONS)) expect(allows("owner", a), a).toBe(true);
  });
});

describe("decide", () => {
  it("answers 404 to anyone who is not a member, a membership of a removed member included", () => {
    expect(decide([], [], "service.read", { orgId: ORG })).toMatchObject({ code: "not_found" });
    expect(decide(member("owner"), [], "service.read", { orgId: ORG })).toMatchObject({ code: "not_found" });
  });

  it("answers 403 naming the role that would do", () => {
    const d = decide(member("viewer"), [ORG], "service.deploy", { orgId: ORG, projectId: PROJECT });
    expect(d).toMatchObject({ code: "forbidden", message: expect.stringContaining("needs the developer role") });
    expect(decide(member("developer"), [ORG], "backupTarget.write", { orgId: ORG })).toMatchObject({ message: expect.stringContaining("needs the admin role") });
    expect(decide(member("developer"), [ORG], "service.deploy", { orgId: ORG, projectId: PROJECT })).toBe("ok");
    expect(decide(member("admin"), [ORG], "orgSecurity.manage", { orgId: ORG })).toMatchObject({ code: "forbidden", message: "needs the owner role; you are a admin" });
    expect(decide(member("owner"), [ORG], "orgSecurity.manage", { orgId: ORG })).toBe("ok");
  });

  it("a role on one project: that project as the role says, every other project and the organization itself as 404", () => {
    const contractor = member("developer", PROJECT);
    expect(decide(contractor, [ORG], "service.deploy", { orgId: ORG, projectId: PROJECT })).toBe("ok");
    expect(decide(contractor, [ORG], "service.read", { orgId: ORG, projectId: OTHER_PROJECT })).toMatchObject({ code: "not_found" });
    expect(decide(contractor, [ORG], "backupTarget.read", { orgId: ORG })).toMatchObject({ code: "not_found" });
    expect(decide(contractor, [ORG], "environment.delete", { orgId: ORG, projectId: PROJECT })).toMatchObject({ code: "forbidden" });
  });
});

describe("canAssign", () => {
  it("an owner gives any role, an admin any but owner, nobody else any", () => {
    const table = Object.fromEntries(ROLES.map((actor) => [actor, ROLES.filter((target) => canAssign(actor, target))]));
    expect(table).toEqual({ owner: ["viewer", "developer", "admin", "owner"], admin: ["viewer", "developer", "admin"], developer: [], viewer: [] });
  });

  it("refuses with a 403 naming the role that would do: an admin making themselves owner", () => {
    expect(() => assertCanAssign("admin", "owner")).toThrow(expect.objectContaining({ code: "forbidden", message: expect.stringContaining("needs the owner role") }));
    expect(() => assertCanAssign("developer", "viewer")).toThrow(expect.objectContaining({ code: "forbidden", message: expect.stringContaining("needs the admin role") }));
  });
});
