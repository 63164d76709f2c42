import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actorFor, actorForToken, createApiToken, createAuth, createOperator } from "@levelrail/auth";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { user } from "@levelrail/db/schema/auth";
import { invitation } from "@levelrail/db/schema/invitations";
import { membership } from "@levelrail/db/schema/orgs";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { mailBody, mailHeader, smtpReceiver } from "@levelrail/testkit/receivers";
import { seedOrg, testKit } from "@levelrail/testkit/seed";
import type { Ctx } from "../context";
import { acceptBySignUp, acceptInvitation, lookupInvitation } from "./accept";
import { smtpMailer } from "./invite-mail";
import { type InviteDelivery, inviteMember, listInvitations, revokeInvitation } from "./invitations";
import { changeMemberRole, listMembers, removeMember } from "./members";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let auth: ReturnType<typeof createAuth>;

const PANEL = "http://127.0.0.1:3800";
const noMail: InviteDelivery = { publicUrl: PANEL, mailer: null };

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "members");
  ({ db, sql } = createDb(database.url));
  auth = createAuth({ db, masterKey: randomBytes(32), baseURL: PANEL, trustedOrigins: [PANEL] });
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

/** `code: message` of a refusal, or `ok`. */
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (err: { code?: string; message?: string }) => `${err.code}: ${err.message}`,
  );

/** An operator with an account and no organization; `ctx` re-reads their memberships. */
async function operator(label: string) {
  const email = `${label}-${randomBytes(3).toString("hex")}@test.levelrail.local`;
  const { id } = await createOperator(auth, email, "correct horse battery");
  const ctx = async (): Promise<Ctx> => ({ db, actor: await actorFor(db, id, email), kit: testKit() });
  return { id, email, ctx };
}

const tokenOf = (link: string | null) => (link ?? "").split("/invite/")[1] ?? "";

async function invited(owner: Ctx & { orgId: string }, email: string, role: string) {
  const r = await inviteMember({ ctx: owner, orgId: owner.orgId, input: { email, role }, delivery: noMail });
  return tokenOf(r.link);
}

const rolesOf = async (orgId: string) => Object.fromEntries((await db.select().from(membership).where(eq(membership.orgId, orgId))).map((m) => [m.userId, m.role]));

describe("invitations", () => {
  it("without SMTP settings the link is answered once; only its hash is stored; accepting makes the invitee a member with the role", async () => {
    const owner = await seedOrg(db, "inv");
    const bob = await operator("bob");
    const r = await inviteMember({ ctx: owner, orgId: owner.orgId, input: { email: bob.email.toUpperCase(), role: "developer" }, delivery: noMail });
    expect(r.emailed).toBe(false);
    expect(r.link).toMatch(new RegExp(`^${PANEL}/invite/[A-Za-z0-9_-]{43}$`));
    expect(r.invitation).toMatchObject({ email: bob.email, role: "developer", invitedBy: owner.actor.email });
    const token = tokenOf(r.link);
    const [row] = await db.select().from(invitation).where(eq(invitation.id, r.invitation.id));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row!.expiresAt.getTime() - row!.createdAt.getTime()).toBe(7 * 24 * 3600 * 1000);
    expect((await listInvitations({ ctx: owner, orgId: owner.orgId })).map((i) => i.email)).toEqual([bob.email]);
    expect(await lookupInvitation(db, token)).toMatchObject({ state: "pending", email: bob.email, role: "developer", hasAccount: true });

    const accepted = await acceptInvitation({ db, actor: (await bob.ctx()).actor, input: { token } });
    expect(accepted).toEqual({ orgId: owner.orgId, role: "developer" });
    expect((await rolesOf(owner.orgId))[bob.id]).toBe("developer");
    expect((await bob.ctx()).actor.orgIds).toContain(owner.orgId);
    expect(await listInvitations({ ctx: owner, orgId: owner.orgId })).toEqual([]);
    // Single use: the same link again is a 409 that says so, for anyone.
    expect(await outcome(acceptInvitation({ db, actor: (await bob.ctx()).actor, input: { token } }))).toMatch(/^conflict: this invitation has been used already/);
    expect((await lookupInvitation(db, token)).state).toBe("accepted");
  });

  it("with SMTP settings the link is mailed through a real SMTP server and not answered", async () => {
    const smtp = await smtpReceiver({ username: "panel", password: "s3cret pass" });
    try {
      const owner = await seedOrg(db, "mail");
      const mailer = smtpMailer(`smtp://panel:${encodeURIComponent("s3cret pass")}@127.0.0.1:${smtp.port}?from=panel%40example.test`, "example.test");
      const r = await inviteMember({ ctx: owner, orgId: owner.orgId, input: { email: "carol@example.test", role: "viewer" }, delivery: { publicUrl: PANEL, mailer } });
      expect(r).toMatchObject({ emailed: true, link: null, emailError: null });
      expect(smtp.mails).toHaveLength(1);
      const mail = smtp.mails[0]!;
      expect(mail).toMatchObject({ from: "panel@example.test", to: ["carol@example.test"], user: "panel" });
      expect(mailHeader(mail.raw, "Subject")).toContain("You are invited to mail-");
      const link = /(http:\/\/\S+\/invite\/[A-Za-z0-9_-]+)/.exec(mailBody(mail.raw))?.[1] ?? "";
      expect(await lookupInvitation(db, tokenOf(link))).toMatchObject({ state: "pending", email: "carol@example.test", role: "viewer", hasAccount: false });
    } finally {
      await smtp.close();
    }
  });

  it("when mailing fails the invitation stands and the link is answered with why (never the server's text)", async () => {
    const smtp = await smtpReceiver({ username: "panel", password: "right" }, { authError: "internal banner 10.0.0.7" });
    try {
      const owner = await seedOrg(db, "mailfail");
      const mailer = smtpMailer(`smtp://panel:wrong@127.0.0.1:${smtp.port}`, "example.test");
      const r = await inviteMember({ ctx: owner, orgId: owner.orgId, input: { email: "dan@example.test", role: "viewer" }, delivery: { publicUrl: PANEL, mailer } });
      expect(r.emailed).toBe(false);
      expect(r.link).toContain("/invite/");
      expect(r.emailError).toContain("refused the login");
      expect(r.emailError).not.toContain("10.0.0.7");
      expect(r.emailError).not.toContain("wrong");
    } finally {
      await smtp.close();
    }
  });

  it("a signed-out invitee signs up through the link: the account is created and joins with the role", async () => {
    const owner = await seedOrg(db, "signup");
    const email = `new-${randomBytes(3).toString("hex")}@test.levelrail.local`;
    const token = await invited(owner, email, "admin");
    expect(await outcome(acceptBySignUp({ db, input: { token, password: "short" }, createAccount: (e, p) => createOperator(auth, e, p) }))).toMatch(/^invalid_input: password/);
    const r = await acceptBySignUp({ db, input: { token, password: "a long password" }, createAccount: (e, p) => createOperator(auth, e, p) });
    expect(r).toEqual({ orgId: owner.orgId, role: "admin", email });
    const [u] = await db.select().from(user).where(eq(user.email, email));
    expect((await rolesOf(owner.orgId))[u!.id]).toBe("admin");
    // The account signs in with that password.
    const res = await auth.api.signInEmail({ body: { email, password: "a long password" } });
    expect(res.user.email).toBe(email);
  });

  it("expired, used, revoked and unknown links make nobody a member", async () => {
    const owner = await seedOrg(db, "dead");
    const [a, b, c] = [await operator("a"), await operator("b"), await operator("c")];
    const expired = await invited(owner, a.email, "viewer");
    await db.update(invitation).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(invitation.email, a.email));
    const revoked = await invited(owner, b.email, "viewer");
    const [pend] = await listInvitations({ ctx: owner, orgId: owner.orgId });
    expect(pend?.email).toBe(b.email);
    await revokeInvitation({ ctx: owner, orgId: owner.orgId, id: pend!.id });
    const newcomer = `x-${randomBytes(3).toString("hex")}@test.levelrail.local`;
    const revokedSignUp = await invited(owner, newcomer, "viewer");
    await db.update(invitation).set({ revokedAt: new Date() }).where(eq(invitation.email, newcomer));

    expect(await outcome(acceptInvitation({ db, actor: (await a.ctx()).actor, input: { token: expired } }))).toMatch(/^conflict: this invitation has expired/);
    expect(await outcome(acceptInvitation({ db, actor: (await b.ctx()).actor, input: { token: revoked } }))).toMatch(/^conflict: this invitation was revoked/);
    expect(await outcome(acceptInvitation({ db, actor: (await c.ctx()).actor, input: { token: "A".repeat(43) } }))).toMatch(/^not_found: /);
    expect(await outcome(acceptBySignUp({ db, input: { token: revokedSignUp, password: "a long password" }, createAccount: (e, p) => createOperator(auth, e, p) }))).toMatch(/^conflict: this invitation was revoked/);
    expect((await lookupInvitation(db, expired)).state).toBe("expired");
    expect((await lookupInvitation(db, "not a token")).state).toBe("unknown");
    expect(Object.keys(await rolesOf(owner.orgId))).toEqual([owner.actor.userId]);
    expect(await db.select().from(user).where(eq(user.email, newcomer))).toEqual([]);
  });

  it("another address's invitation is a 403; an address with an account must sign in (409); re-inviting revokes the earlier link", async () => {
    const owner = await seedOrg(db, "who");
    const [a, b] = [await operator("a"), await operator("b")];
    const first = await invited(owner, a.email, "viewer");
    const second = await invited(owner, a.email, "developer");
    expect((await lookupInvitation(db, first)).state).toBe("revoked");
    expect(await outcome(acceptInvitation({ db, actor: (await b.ctx()).actor, input: { token: second } }))).toMatch(/^forbidden: this invitation was sent to /);
    expect(await outcome(acceptBySignUp({ db, input: { token: second, password: "a long password" }, createAccount: (e, p) => createOperator(auth, e, p) }))).toMatch(/^conflict: .* has an account already: sign in/);
    expect(await acceptInvitation({ db, actor: (await a.ctx()).actor, input: { token: second } })).toMatchObject({ role: "developer" });
  });

  it("inviting a member's address is a 409; only owners and admins invite, only owners invite owners", async () => {
    const owner = await seedOrg(db, "dup");
    const [adm, dev] = [await operator("adm"), await operator("dev")];
    await acceptInvitation({ db, actor: (await adm.ctx()).actor, input: { token: await invited(owner, adm.email, "admin") } });
    await acceptInvitation({ db, actor: (await dev.ctx()).actor, input: { token: await invited(owner, dev.email, "developer") } });
    const invite = async (ctx: Ctx, email: string, role: string) => outcome(inviteMember({ ctx, orgId: owner.orgId, input: { email, role }, delivery: noMail }));
    expect(await invite(owner, dev.email.toUpperCase(), "viewer")).toBe(`conflict: ${dev.email} is a member of this organization already`);
    expect(await invite(owner, owner.actor.email, "viewer")).toMatch(/^conflict: /);
    expect(await invite(await dev.ctx(), "z@example.test", "viewer")).toMatch(/^forbidden: inviting members needs the owner or admin role; you are a developer/);
    expect(await invite(await adm.ctx(), "z@example.test", "owner")).toBe("forbidden: only an owner may invite an owner");
    expect(await invite(await adm.ctx(), "z@example.test", "viewer")).toBe("ok");
    expect(await invite(owner, "z@example.test", "superuser")).toMatch(/^invalid_input: role: must be owner, admin, developer or viewer/);
    const outsider = await operator("out");
    expect(await invite(await outsider.ctx(), "y@example.test", "viewer")).toMatch(/^not_found: /);
    expect(await outcome(listInvitations({ ctx: await dev.ctx(), orgId: owner.orgId }))).toMatch(/^forbidden: /);
  });
});

describe("members", () => {
  async function team() {
    const owner = await seedOrg(db, "team");
    const [adm, dev] = [await operator("adm"), await operator("dev")];
    await acceptInvitation({ db, actor: (await adm.ctx()).actor, input: { token: await invited(owner, adm.email, "admin") } });
    await acceptInvitation({ db, actor: (await dev.ctx()).actor, input: { token: await invited(owner, dev.email, "developer") } });
    return { owner, adm, dev };
  }

  it("lists the members with their roles; any member may", async () => {
    const { owner, adm, dev } = await team();
    const list = await listMembers({ ctx: await dev.ctx(), orgId: owner.orgId });
    expect(list.map((m) => [m.email, m.role, m.you])).toEqual([
      [owner.actor.email, "owner", false],
      [adm.email, "admin", false],
      [dev.email, "developer", true],
    ]);
    // Each member's second factor: for an owner only (who resets it or signs the member out from this list).
    expect(list.map((m) => m.twoFactorEnabled)).toEqual([null, null, null]);
    expect((await listMembers({ ctx: await adm.ctx(), orgId: owner.orgId })).map((m) => m.twoFactorEnabled)).toEqual([null, null, null]);
    expect((await listMembers({ ctx: owner, orgId: owner.orgId })).map((m) => m.twoFactorEnabled)).toEqual([false, false, false]);
  });

  it("the last owner can neither leave nor be demoted (409); with a second owner both work", async () => {
    const { owner, adm } = await team();
    const o = owner.actor.userId;
    expect(await outcome(removeMember({ ctx: owner, orgId: owner.orgId, userId: "me" }))).toMatch(/^conflict: you are the last owner of this organization: make another member an owner first/);
    expect(await outcome(changeMemberRole({ ctx: owner, orgId: owner.orgId, userId: o, input: { role: "admin" } }))).toMatch(/^conflict: you are the last owner/);
    expect((await rolesOf(owner.orgId))[o]).toBe("owner");
    // An admin may not touch ownership, nor make themselves owner.
    expect(await outcome(changeMemberRole({ ctx: await adm.ctx(), orgId: owner.orgId, userId: adm.id, input: { role: "owner" } }))).toBe("forbidden: you cannot make yourself an owner; another owner can");
    expect(await outcome(changeMemberRole({ ctx: await adm.ctx(), orgId: owner.orgId, userId: o, input: { role: "viewer" } }))).toBe("forbidden: only an owner may grant or take away the owner role");
    expect(await outcome(removeMember({ ctx: await adm.ctx(), orgId: owner.orgId, userId: o }))).toBe("forbidden: only an owner may remove an owner");
    expect(await changeMemberRole({ ctx: owner, orgId: owner.orgId, userId: adm.id, input: { role: "owner" } })).toMatchObject({ role: "owner" });
    expect(await changeMemberRole({ ctx: owner, orgId: owner.orgId, userId: "me", input: { role: "viewer" } })).toMatchObject({ role: "viewer", you: true });
    expect(await outcome(removeMember({ ctx: await adm.ctx(), orgId: owner.orgId, userId: "me" }))).toMatch(/^conflict: you are the last owner/);
  });

  it("two owners demoting each other at once leave one owner", async () => {
    const { owner, adm } = await team();
    await changeMemberRole({ ctx: owner, orgId: owner.orgId, userId: adm.id, input: { role: "owner" } });
    const admCtx = await adm.ctx();
    const results = await Promise.all([
      outcome(changeMemberRole({ ctx: owner, orgId: owner.orgId, userId: adm.id, input: { role: "viewer" } })),
      outcome(changeMemberRole({ ctx: admCtx, orgId: owner.orgId, userId: owner.actor.userId, input: { role: "viewer" } })),
    ]);
    expect(results.filter((r) => r === "ok")).toHaveLength(1);
    expect(Object.values(await rolesOf(owner.orgId)).filter((r) => r === "owner")).toHaveLength(1);
  });

  it("a role change by a developer is a 403; by an admin it works", async () => {
    const { owner, adm, dev } = await team();
    expect(await outcome(changeMemberRole({ ctx: await dev.ctx(), orgId: owner.orgId, userId: dev.id, input: { role: "admin" } }))).toMatch(/^forbidden: changing a member's role needs the owner or admin role/);
    expect(await outcome(changeMemberRole({ ctx: await dev.ctx(), orgId: owner.orgId, userId: "me", input: { role: "owner" } }))).toMatch(/^forbidden: /);
    expect(await changeMemberRole({ ctx: await adm.ctx(), orgId: owner.orgId, userId: dev.id, input: { role: "viewer" } })).toMatchObject({ role: "viewer" });
    expect(await outcome(changeMemberRole({ ctx: await adm.ctx(), orgId: owner.orgId, userId: "nobody", input: { role: "viewer" } }))).toBe("not_found: member not found");
  });

  it("a removed member's API token loses the organization at once; a member may leave", async () => {
    const { owner, adm, dev } = await team();
    const token = await createApiToken(db, dev.email, "ci");
    expect((await actorForToken(db, token))?.orgIds).toContain(owner.orgId);
    expect(await outcome(removeMember({ ctx: await dev.ctx(), orgId: owner.orgId, userId: adm.id }))).toMatch(/^forbidden: removing a member needs the owner or admin role/);
    await removeMember({ ctx: await adm.ctx(), orgId: owner.orgId, userId: dev.id });
    // A member of no organization any more: the token answers as unknown (401 at the API).
    expect(await actorForToken(db, token)).toBeNull();
    const after = await actorFor(db, dev.id, dev.email);
    expect(await outcome(listMembers({ ctx: { db, actor: after, kit: testKit() }, orgId: owner.orgId }))).toMatch(/^not_found: /);
    const admCtx = await adm.ctx();
    await removeMember({ ctx: admCtx, orgId: owner.orgId, userId: "me" });
    expect(admCtx.actor.orgIds).not.toContain(owner.orgId);
    expect(Object.keys(await rolesOf(owner.orgId))).toEqual([owner.actor.userId]);
    expect(await outcome(removeMember({ ctx: owner, orgId: owner.orgId, userId: dev.id }))).toBe("not_found: member not found");
  });
});
