import { describe, expect, it } from "vitest";
import { groupsOf, orgOfProvider, ssoProviderId } from "@levelrail/auth/sso";
import { issuerProblem, mappedRole, membershipChange, ssoInput, ssoInputProblem } from "./sso-rules";

const open = { allowPrivate: true };
const closed = { allowPrivate: false, panelHost: "panel.example.com" };

describe("issuerProblem", () => {
  it("accepts an https issuer with a path, refuses other schemes, credentials, queries and fragments", () => {
    expect(issuerProblem("https://id.example.com/realms/acme", closed)).toBeNull();
    expect(issuerProblem("http://id.example.com", closed)).toMatch(/^issuer: must be an https/);
    expect(issuerProblem("http://127.0.0.1:8080", open)).toBeNull();
    expect(issuerProblem("ftp://id.example.com", open)).toMatch(/https/);
    expect(issuerProblem("https://u:p@id.example.com", closed)).toMatch(/credentials/);
    expect(issuerProblem("https://id.example.com/?a=1", closed)).toMatch(/query/);
    expect(issuerProblem("https://id.example.com/#x", closed)).toMatch(/fragment/);
    expect(issuerProblem("nope", closed)).toMatch(/must be a URL/);
  });
  it("applies the installation's address policy without connecting", () => {
    expect(issuerProblem("https://127.0.0.1", closed)).toMatch(/LEVELRAIL_ALLOW_PRIVATE_TARGETS/);
    expect(issuerProblem("https://10.1.2.3", closed)).toMatch(/private/);
    expect(issuerProblem("https://localhost", closed)).toMatch(/loopback/);
    expect(issuerProblem("https://panel.example.com", closed)).toMatch(/panel's own host/);
    expect(issuerProblem("https://127.0.0.1", open)).toBeNull();
  });
});

describe("ssoInput", () => {
  const base = { issuer: "https://id.example.com", clientId: "c", domain: "Corp.Example" };
  it("fills the defaults and lower-cases the domain", () => {
    expect(ssoInput.parse(base)).toEqual({ ...base, domain: "corp.example", defaultRole: "viewer", groupsClaim: null, groupRoles: {}, requireSso: false });
  });
  it("refuses owner as the default role, unknown roles, odd claim names and bad domains", () => {
    expect(ssoInput.safeParse({ ...base, defaultRole: "owner" }).success).toBe(false);
    expect(ssoInput.safeParse({ ...base, groupRoles: { a: "root" } }).success).toBe(false);
    expect(ssoInput.safeParse({ ...base, groupsClaim: "a b" }).success).toBe(false);
    expect(ssoInput.safeParse({ ...base, domain: "no_tld" }).success).toBe(false);
    expect(ssoInput.safeParse({ ...base, extra: true }).success).toBe(false);
  });
  it("needs a client secret the first time, and a claim for a group map", () => {
    const parsed = ssoInput.parse(base);
    expect(ssoInputProblem(parsed, closed, false)?.[0]).toBe("clientSecret");
    expect(ssoInputProblem(parsed, closed, true)).toBeNull();
    expect(ssoInputProblem({ ...parsed, groupRoles: { a: "admin" } }, closed, true)?.[0]).toBe("groupsClaim");
    expect(ssoInputProblem({ ...parsed, groupRoles: { a: "admin" }, groupsClaim: "groups" }, closed, true)).toBeNull();
  });
});

describe("role mapping", () => {
  const map = { devs: "developer", admins: "admin", readers: "viewer" } as const;
  it("the strongest role the groups map to, or null", () => {
    expect(mappedRole(["readers", "admins", "devs"], map)).toBe("admin");
    expect(mappedRole(["other"], map)).toBeNull();
    expect(mappedRole(null, map)).toBeNull();
    expect(mappedRole(["constructor", "__proto__"], map)).toBeNull();
  });
  it("a newcomer joins with the mapped role or the default; a member follows the map; the last owner is never demoted", () => {
    expect(membershipChange(null, null, "developer", false)).toEqual({ kind: "join", role: "developer" });
    expect(membershipChange(null, "admin", "developer", false)).toEqual({ kind: "join", role: "admin" });
    expect(membershipChange({ role: "developer" }, null, "viewer", false)).toBeNull();
    expect(membershipChange({ role: "developer" }, "developer", "viewer", false)).toBeNull();
    expect(membershipChange({ role: "developer" }, "viewer", "viewer", false)).toEqual({ kind: "role", role: "viewer" });
    expect(membershipChange({ role: "owner" }, "admin", "viewer", true)).toBeNull();
    expect(membershipChange({ role: "owner" }, "admin", "viewer", false)).toEqual({ kind: "role", role: "admin" });
  });
  it("the groups claim: an array of strings or one string", () => {
    expect(groupsOf({ groups: ["a", 1, "b"] }, "groups")).toEqual(["a", "b"]);
    expect(groupsOf({ roles: "a" }, "roles")).toEqual(["a"]);
    expect(groupsOf({ groups: { a: 1 } }, "groups")).toBeNull();
    expect(groupsOf({ groups: ["a"] }, null)).toBeNull();
  });
  it("provider ids name an organization by its uuid only", () => {
    const id = "8a7f2c4e-1b2d-4e5f-9a0b-1c2d3e4f5a6b";
    expect(orgOfProvider(ssoProviderId(id))).toBe(id);
    expect(orgOfProvider("sso-x")).toBeNull();
    expect(orgOfProvider("github")).toBeNull();
  });
});
