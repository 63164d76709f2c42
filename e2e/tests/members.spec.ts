// Members and invitations (issue 23, item 1): an owner invites by email on Settings → Members; with
// no SMTP settings the link is shown once; a second person opens it signed out, creates an account
// and sees the organization; the owner removes them and they lose it at once, in the browser and
// with their API token; the used link then says so and makes nobody a member.
import { randomBytes } from "node:crypto";
import type { Locator } from "@playwright/test";
import { eq } from "drizzle-orm";
import { createApiToken } from "@levelrail/auth";
import { user } from "@levelrail/db/schema/auth";
import { membership, organization } from "@levelrail/db/schema/orgs";
import { removeOperator, seedOperator } from "../fixtures/stack";
import { expect, test } from "../fixtures/test";
import { hydrated } from "../fixtures/ui";

const linkBox = (form: Locator) => form.getByRole("textbox", { name: "Invitation link" });

test("an owner invites, a new user accepts through the link (sign-up) and sees the organization, then is removed and loses access", async ({
  browser,
  playwright,
  operator,
  stack,
  signedIn: page,
}) => {
  const [org] = await stack.db.select({ name: organization.name }).from(organization).where(eq(organization.id, operator.orgId));
  const orgName = org!.name;
  const email = `invitee-${randomBytes(4).toString("hex")}@e2e.levelrail.test`;
  const password = randomBytes(12).toString("base64url");

  // The owner invites on Settings → Members.
  await page.goto("/settings");
  const settingsNav = page.getByRole("navigation", { name: "Settings" });
  await expect(settingsNav.getByRole("link", { name: "Overview" })).toHaveAttribute("aria-current", "page");
  await settingsNav.getByRole("link", { name: "Members" }).click();
  await expect(settingsNav.getByRole("link", { name: "Members" })).toHaveAttribute("aria-current", "page");
  await expect(settingsNav.getByRole("link", { name: "Overview" })).not.toHaveAttribute("aria-current");
  await expect(page.getByRole("heading", { name: `Members of ${orgName}` })).toBeVisible();
  const form = page.getByRole("form", { name: "Invite a member" });
  const invite = form.getByRole("button", { name: "Invite" });
  await hydrated(invite);
  await form.getByLabel("Email").fill("not an address");
  await invite.click();
  await expect(form.getByRole("alert")).toContainText("must be an email address");
  await expect(linkBox(form)).toHaveCount(0);
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Role").selectOption("developer");
  await invite.click();
  await expect(linkBox(form)).toHaveValue(/\/invite\/[A-Za-z0-9_-]{43}$/);
  // The link is on LEVELRAIL_PUBLIC_URL (unset here: http://localhost:<port>); the suite's browser uses 127.0.0.1.
  const link = new URL(await linkBox(form).inputValue()).pathname;
  const pending = page.getByRole("table", { name: "Pending invitations" });
  await expect(pending.getByRole("row", { name: new RegExp(email) })).toContainText("developer");
  // Inviting the owner's own address: a 409 next to the field.
  await form.getByLabel("Email").fill(operator.email);
  await invite.click();
  await expect(form.getByRole("alert")).toContainText("is a member of this organization already");

  // The invitee, signed out in a browser of their own, opens the link and creates an account.
  const theirs = await browser.newContext({ baseURL: stack.env.baseURL });
  const guest = await theirs.newPage();
  let token: string | null = null;
  try {
    await guest.goto(link);
    await expect(guest.getByRole("heading", { name: "Join an organization" })).toBeVisible();
    await expect(guest.getByRole("main")).toContainText(`You are invited to the organization ${orgName} as developer`);
    const join = guest.getByRole("button", { name: "Create account and join" });
    await hydrated(join);
    await guest.getByLabel("Choose a password").fill(password);
    await guest.getByLabel("Repeat the password").fill(password);
    await join.click();
    await expect(guest).toHaveURL(/\/$/);
    await guest.goto("/settings/members");
    await expect(guest.getByRole("heading", { name: `Members of ${orgName}` })).toBeVisible();
    const members = guest.getByRole("table", { name: `Members of ${orgName}` });
    await expect(members.getByRole("row", { name: new RegExp(`${email} \\(you\\)`) })).toContainText("developer");
    // A developer sees no invitations and cannot invite.
    await expect(guest.getByRole("form", { name: "Invite a member" })).toHaveCount(0);

    // Their API token reaches the organization while they are a member.
    token = await createApiToken(stack.db, email, "e2e-members");
    const api = await playwright.request.newContext({ baseURL: stack.env.baseURL, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
    try {
      expect((await api.get(`/api/v1/orgs/${operator.orgId}/members`)).status()).toBe(200);

      // The owner sees them, the invitation is gone from the pending list, and removes them.
      await page.reload();
      const ownerView = page.getByRole("table", { name: `Members of ${orgName}` });
      await expect(ownerView.getByRole("combobox", { name: `Role of ${email}` })).toHaveValue("developer");
      await expect(page.getByText("No pending invitations.")).toBeVisible();
      await hydrated(ownerView.getByRole("button", { name: `Remove ${email}` }));
      await ownerView.getByRole("button", { name: `Remove ${email}` }).click();
      await expect(ownerView.getByRole("row", { name: new RegExp(email) })).toHaveCount(0);

      // At once: the token of a member of no organization any more answers 401 (docs/operating/teams-and-sso.md#roles), and the
      // browser shows the organization no more.
      expect((await api.get(`/api/v1/orgs/${operator.orgId}/members`)).status()).toBe(401);
      expect((await api.get("/api/v1/orgs")).status()).toBe(401);
      await guest.goto("/settings/members");
      await expect(guest.getByText("You belong to no organization.")).toBeVisible();
      await expect(guest.getByRole("main")).not.toContainText(orgName);
    } finally {
      await api.dispose();
    }

    // The used link says so and makes nobody a member.
    await guest.goto(link);
    await expect(guest.getByRole("heading", { name: "This invitation can no longer be used" })).toBeVisible();
    await expect(guest.getByRole("main").getByRole("alert")).toContainText("has been used already");
    const [row] = await stack.db.select({ id: user.id }).from(user).where(eq(user.email, email));
    expect(await stack.db.select().from(membership).where(eq(membership.userId, row!.id))).toEqual([]);
  } finally {
    await theirs.close();
    await stack.db.delete(user).where(eq(user.email, email));
  }
});

test("an address with an account signs in through the link and joins; a revoked link says so; the last owner stays one (409); self-promotion is a 403", async ({
  browser,
  playwright,
  bearer,
  operator,
  stack,
}) => {
  const other = await seedOperator(stack, "invitee");
  const theirs = await browser.newContext({ baseURL: stack.env.baseURL });
  const guest = await theirs.newPage();
  const api = await playwright.request.newContext({
    baseURL: stack.env.baseURL,
    extraHTTPHeaders: { authorization: `Bearer ${await createApiToken(stack.db, other.email, "e2e-members")}` },
  });
  const invitations = `/api/v1/orgs/${operator.orgId}/invitations`;
  try {
    const invited = await bearer.post(invitations, { data: { email: other.email, role: "viewer" } });
    expect(invited.status()).toBe(201);
    const { link, emailed, invitation } = (await invited.json()) as { link: string; emailed: boolean; invitation: { id: string; role: string } };
    expect({ emailed, role: invitation.role }).toEqual({ emailed: false, role: "viewer" });
    expect(((await (await bearer.post(invitations, { data: { email: operator.email, role: "viewer" } })).json()) as { error: unknown }).error).toMatchObject({
      code: "conflict",
      field: "email",
    });
    expect((await bearer.post(invitations, { data: { email: "x@example.test", role: "superuser" } })).status()).toBe(400);

    await guest.goto(new URL(link).pathname);
    const join = guest.getByRole("button", { name: "Sign in and join" });
    await hydrated(join);
    await expect(guest.getByLabel("Email")).toHaveValue(other.email);
    await guest.getByLabel("Password").fill(other.password);
    // The suite's set-up signs in through better-auth's API (fixtures/ui.ts), so the address's HTTP
    // sign-ins (3 in 10 s) are the ones under test: this one goes through at the first click.
    await join.click();
    await expect(guest).toHaveURL(/\/$/);
    expect(((await (await api.get("/api/v1/orgs")).json()) as { id: string }[]).map((o) => o.id)).toContain(operator.orgId);

    // A viewer making themselves owner: 403; the last owner can neither leave nor be demoted: 409.
    const promote = await api.patch(`/api/v1/orgs/${operator.orgId}/members/me`, { data: { role: "owner" } });
    expect(promote.status()).toBe(403);
    expect(((await promote.json()) as { error: unknown }).error).toMatchObject({ code: "forbidden" });
    const leave = await bearer.delete(`/api/v1/orgs/${operator.orgId}/members/me`);
    expect(leave.status()).toBe(409);
    expect(((await leave.json()) as { error: { message: string } }).error.message).toContain("you are the last owner of this organization");
    const demote = await bearer.patch(`/api/v1/orgs/${operator.orgId}/members/${operator.ctx.actor.userId}`, { data: { role: "admin" } });
    expect(demote.status()).toBe(409);

    // A revoked link: a clear page, nobody joins.
    const again = (await (await bearer.post(invitations, { data: { email: "later@example.test", role: "developer" } })).json()) as { link: string; invitation: { id: string } };
    expect((await bearer.delete(`${invitations}/${again.invitation.id}`)).status()).toBe(204);
    await guest.goto(new URL(again.link).pathname);
    await expect(guest.getByRole("heading", { name: "This invitation can no longer be used" })).toBeVisible();
    await expect(guest.getByRole("main").getByRole("alert")).toContainText("was revoked");
    await guest.goto("/invite/not-a-real-token");
    await expect(guest.getByRole("heading", { name: "Invitation not found" })).toBeVisible();

    // The viewer leaves.
    expect((await api.delete(`/api/v1/orgs/${operator.orgId}/members/me`)).status()).toBe(204);
    expect((await api.get(`/api/v1/orgs/${operator.orgId}/members`)).status()).toBe(404);
  } finally {
    await api.dispose();
    await theirs.close();
    await removeOperator(stack, other);
  }
});
