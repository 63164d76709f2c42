// The second factor and sessions in the browser: set up TOTP on /account (the code computed here,
// RFC 6238, apart from the library the panel verifies with), sign out, sign in with a code, then
// list the sessions and end another browser's; an owner acts on a member's sign-in from Members.
import { and, eq } from "drizzle-orm";
import { createApiToken } from "@levelrail/auth";
import { resetSecondFactor } from "@levelrail/auth/account";
import { user } from "@levelrail/db/schema/auth";
import { membership, organization } from "@levelrail/db/schema/orgs";
import { totp } from "@levelrail/testkit/totp";
import { removeOperator, seedOperator } from "../fixtures/stack";
import { expect, test } from "../fixtures/test";
import { hydrated, signInThroughApi } from "../fixtures/ui";

test("set up a second factor, sign in with a computed code, list sessions and end another one", async ({ page, operator, stack, playwright }) => {
  const userId = operator.ctx.actor.userId;
  const other = await playwright.request.newContext({ baseURL: stack.env.baseURL, userAgent: "e2e-other-device/1.0" });
  try {
    await page.goto("/login");
    const signIn = page.getByRole("button", { name: "Sign in" });
    await hydrated(signIn);
    await page.getByLabel("Email").fill(operator.email);
    await page.getByLabel("Password").fill(operator.password);
    await signIn.click();
    await expect(page.getByRole("heading", { level: 1, name: "Apps" })).toBeVisible();

    // Set up: the password, then the code of the secret the page shows; the recovery codes once.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Account" }).click();
    const card = page.getByRole("region", { name: "Second factor" });
    const setUp = card.getByRole("button", { name: "Set up" });
    await hydrated(setUp);
    await card.getByLabel("Password").fill(operator.password);
    await setUp.click();
    const secret = (await card.getByLabel("TOTP secret").textContent())?.trim() ?? "";
    expect(secret).toMatch(/^[A-Z2-7]+=*$/);
    await expect(card.getByRole("link", { name: "otpauth URI" })).toHaveAttribute("href", /^otpauth:\/\/totp\/Levelrail:.*secret=/);
    await card.getByLabel("Code from the app").fill(totp(secret));
    await card.getByRole("button", { name: "Confirm" }).click();
    const codes = card.getByRole("list", { name: "Recovery code list" }).getByRole("listitem");
    await expect(codes).toHaveCount(10);
    const recoveryCode = (await codes.first().textContent())?.trim() ?? "";
    await card.getByRole("button", { name: "I have saved them" }).click();
    await expect(codes).toHaveCount(0);
    await expect(card.getByText("On.")).toBeVisible();

    // Sign out; the password alone no longer opens a session: the code does.
    const signOut = page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Sign out" });
    await hydrated(signOut);
    await signOut.click();
    await expect(page).toHaveURL(/\/login$/);
    await hydrated(page.getByRole("button", { name: "Sign in" }));
    await page.getByLabel("Email").fill(operator.email);
    await page.getByLabel("Password").fill(operator.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    const code = page.getByLabel("Authentication code");
    await expect(code).toBeVisible();
    expect((await page.request.get("/api/v1/sessions")).status()).toBe(401);
    await code.fill(totp(secret) === "000000" ? "111111" : "000000");
    await page.getByRole("button", { name: "Verify" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toHaveText(/not valid/);
    await code.fill(totp(secret));
    await page.getByRole("button", { name: "Verify" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Apps" })).toBeVisible();

    // Another device signs in (password, then a recovery code) through better-auth's routes. (A code
    // would do too; better-auth allows three code checks per address in ten seconds, spent above.)
    const origin = { origin: stack.env.baseURL };
    const first = await other.post("/api/auth/sign-in/email", { data: { email: operator.email, password: operator.password }, headers: origin });
    expect(await first.json()).toMatchObject({ twoFactorRedirect: true });
    expect((await other.post("/api/auth/two-factor/verify-backup-code", { data: { code: recoveryCode }, headers: origin })).status()).toBe(200);
    expect((await other.get("/api/v1/sessions")).status()).toBe(200);

    // The sessions: this browser marked; end the other device's.
    await page.goto("/account");
    const sessions = page.getByRole("region", { name: "Sessions" });
    await expect(sessions.getByRole("row")).toHaveCount(3);
    await expect(sessions.getByRole("row").filter({ hasText: "(this browser)" })).toHaveCount(1);
    const end = sessions.getByRole("button", { name: "End session e2e-other-device/1.0" });
    await hydrated(end);
    await end.click();
    await expect(sessions.getByRole("row")).toHaveCount(2);
    expect((await other.get("/api/v1/sessions")).status()).toBe(401);
    expect((await page.request.get("/api/v1/sessions")).status()).toBe(200);
  } finally {
    await other.dispose();
    await resetSecondFactor(stack.db, userId);
  }
});

test("an organization that requires a second factor refuses a member without one there only, saying to set it up; their other organization and API token are not affected", async ({ page, operator, stack }) => {
  const member = await seedOperator(stack, "no-2fa");
  try {
    await stack.db.insert(membership).values({ orgId: operator.orgId, userId: member.ctx.actor.userId, role: "developer" });
    await stack.db.update(organization).set({ require2fa: true }).where(eq(organization.id, operator.orgId));
    // Signed in through better-auth's API (the test above spent the address's HTTP sign-ins).
    await signInThroughApi(page, stack, member);

    // The member's own organization keeps working; every page says which one asks for a second factor.
    await page.goto("/");
    await expect(page.getByRole("main").getByRole("alert").first()).toHaveText(/requires a second factor/);
    await page.getByRole("main").getByRole("link", { name: "your account page" }).click();
    await expect(page.getByRole("region", { name: "Second factor" }).getByRole("button", { name: "Set up" })).toBeVisible();

    const refused = await page.request.get(`/api/v1/orgs/${operator.orgId}/quotas`);
    expect(refused.status()).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: "forbidden", message: expect.stringContaining("requires a second factor") } });
    expect((await page.request.get(`/api/v1/orgs/${member.orgId}/quotas`)).status()).toBe(200);
    expect(await (await page.request.get("/api/v1/account")).json()).toMatchObject({ secondFactorRequiredBy: [operator.orgId] });

    const token = await createApiToken(stack.db, member.email, "e2e-2fa");
    const byToken = await page.request.get(`/api/v1/orgs/${operator.orgId}/quotas`, { headers: { authorization: `Bearer ${token}` } });
    expect(byToken.status()).toBe(200);
  } finally {
    await stack.db.update(organization).set({ require2fa: false }).where(eq(organization.id, operator.orgId));
    await removeOperator(stack, member);
  }
});

test("an owner sees each member's second factor on Members, resets it and signs the member out everywhere; Sign-in security holds the policy only", async ({
  signedIn: page,
  operator,
  stack,
  browser,
}) => {
  const member = await seedOperator(stack, "lost-device");
  const theirs = await browser.newContext({ baseURL: stack.env.baseURL });
  try {
    await stack.db.insert(membership).values({ orgId: operator.orgId, userId: member.ctx.actor.userId, role: "developer" });
    // A member of this organization only: an owner's reset and sign-out reach a member of several
    // organizations only within theirs (the integration tests of org/security.ts cover that case).
    await stack.db.delete(membership).where(and(eq(membership.orgId, member.orgId), eq(membership.userId, member.ctx.actor.userId)));
    // The member is signed in somewhere, then has a second factor (the flag is what the list shows and the reset clears).
    const guest = await theirs.newPage();
    await signInThroughApi(guest, stack, member);
    expect((await guest.request.get("/api/v1/sessions")).status()).toBe(200);
    await stack.db.update(user).set({ twoFactorEnabled: true }).where(eq(user.id, member.ctx.actor.userId));

    await page.goto("/settings/security");
    const security = page.getByRole("region", { name: "Sign-in security" });
    await expect(security.getByRole("checkbox")).toBeVisible();
    await expect(security.getByRole("table")).toHaveCount(0);
    await security.getByRole("link", { name: "Members" }).click();
    const row = page.getByRole("table", { name: /^Members of / }).getByRole("row").filter({ hasText: member.email });
    await expect(row.getByRole("cell", { name: "on", exact: true })).toBeVisible();
    const reset = row.getByRole("button", { name: `Reset second factor of ${member.email}` });
    await hydrated(reset);
    await reset.click();
    await expect(row.getByRole("cell", { name: "off", exact: true })).toBeVisible();
    await expect(reset).toHaveCount(0);
    await row.getByRole("button", { name: `Sign out ${member.email} everywhere` }).click();
    await expect(row.getByRole("status")).toHaveText("Signed out everywhere.");
    expect((await guest.request.get("/api/v1/sessions")).status()).toBe(401);
  } finally {
    await theirs.close();
    await removeOperator(stack, member);
  }
});
