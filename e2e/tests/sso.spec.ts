// Single sign-on in the browser, against a real OpenID provider on loopback (oidc-provider with its
// own login and consent pages): the owner sets up the connection on Settings, a new person is
// refused until the organization has proven their email's domain (its TXT record, checked by the
// stack's worker against the spec's own DNS server), then signs in with SSO through the provider's
// pages and joins with the mapped role, and once the organization requires SSO a password session
// is refused its data with a 403 that says so.
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { user } from "@levelrail/db/schema/auth";
import { membership } from "@levelrail/db/schema/orgs";
import { ssoConnection, ssoEmailDomain } from "@levelrail/db/schema/sso";
import { startTestDns } from "@levelrail/testkit/dns";
import { type TestIdp, startOidcProvider } from "@levelrail/testkit/oidc";
import { expect, test } from "../fixtures/test";
import { hydrated } from "../fixtures/ui";

let idp: TestIdp | undefined;
test.afterAll(async () => idp?.close());

test("the owner sets up SSO; a newcomer signs in through the provider's pages; require-SSO refuses a password session", async ({ page, signedIn: _signedIn, operator, stack, browser }) => {
  // The redirect URI the card tells the owner to register: under the panel's public URL (here
  // http://localhost:<port>, where the newcomer's browser goes, so its cookies come back with the callback).
  const before = await page.request.get(`/api/v1/orgs/${operator.orgId}/sso`);
  expect(await before.json()).toMatchObject({ configured: false, clientSecretSet: false });
  const { redirectUri } = (await before.json()) as { redirectUri: string };
  expect(redirectUri).toMatch(new RegExp(`/api/auth/callback/sso-${operator.orgId}$`));
  const panel = new URL(redirectUri).origin;
  idp = await startOidcProvider([redirectUri]);
  const domain = `sso-${randomBytes(3).toString("hex")}.example`;

  // Settings: the owner's Single sign-on card.
  await page.goto("/settings/sso");
  const card = page.getByRole("region", { name: "Single sign-on" });
  const save = card.getByRole("button", { name: "Save single sign-on" });
  await hydrated(save);
  await expect(card.getByText(`/api/auth/callback/sso-${operator.orgId}`)).toBeVisible();
  await card.getByLabel("Issuer URL").fill(idp.issuer);
  await card.getByLabel("Client ID").fill(idp.clientId);
  await card.getByLabel(/^Client secret/).fill(idp.clientSecret);
  await card.getByLabel("Email domain").fill(domain);
  await card.getByLabel("Role of new members").selectOption("viewer");
  await card.getByLabel("Groups claim").fill("groups");
  await card.getByRole("button", { name: "Map a group" }).click();
  await card.getByLabel("Group 1", { exact: true }).fill("engineering");
  await card.getByLabel("Role of group 1").selectOption("developer");
  await save.click();
  await expect(card.getByRole("status")).toHaveText("Single sign-on saved.");
  await expect(card.getByLabel("Client secret (set)")).toBeVisible();
  const view = await page.request.get(`/api/v1/orgs/${operator.orgId}/sso`);
  expect(view.status()).toBe(200);
  const text = await view.text();
  expect(text).not.toContain(idp.clientSecret);
  expect(JSON.parse(text)).toMatchObject({ clientSecretSet: true, domain, groupRoles: { engineering: "developer" } });

  // A newcomer, in a browser of their own: Sign in with SSO, the provider's login and consent pages, back signed in.
  const email = `dana-${randomBytes(3).toString("hex")}@${domain}`;
  idp.groups.set(email, ["engineering"]);
  const context = await browser.newContext();
  const newcomer = await context.newPage();
  const signInWithSso = async () => {
    await newcomer.goto(`${panel}/login`);
    const sso = newcomer.getByRole("form", { name: "Single sign-on" });
    const start = sso.getByRole("button", { name: "Continue with SSO" });
    await hydrated(start);
    await sso.getByLabel("Work address").fill(email);
    await start.click();
    await expect(newcomer).toHaveURL(new RegExp(`^${idp!.issuer}/interaction/`));
    await newcomer.locator('input[name="login"]').fill(email);
    await newcomer.locator('input[name="password"]').fill("anything");
    await newcomer.getByRole("button", { name: "Sign-in" }).click();
    await newcomer.getByRole("button", { name: "Continue" }).click();
  };
  // The stack's worker checks ownership records against this server only (LEVELRAIL_DNS_RESOLVER).
  const dns = await startTestDns({ port: stack.env.dnsPort });
  try {
    // The organization has not proven the domain: the domain its connection names routes nobody, so
    // the sign-in page finds no organization for the address, and nobody is made.
    await newcomer.goto(`${panel}/login`);
    const form = newcomer.getByRole("form", { name: "Single sign-on" });
    const continueButton = form.getByRole("button", { name: "Continue with SSO" });
    await hydrated(continueButton);
    await form.getByLabel("Work address").fill(email);
    await continueButton.click();
    await expect(form.getByRole("alert")).toContainText("No organization signs in with single sign-on for this email's domain");
    expect(await stack.db.select({ id: user.id }).from(user).where(eq(user.email, email))).toEqual([]);

    // The owner adds the domain (the record to create comes back), publishes it, and asks for a check.
    // A write with the session carries the panel's own Origin, as the browser's would.
    const own = { origin: new URL(stack.env.baseURL).origin };
    const added = await page.request.post(`/api/v1/orgs/${operator.orgId}/sso/domains`, { data: { domain }, headers: own });
    expect(added.status()).toBe(201);
    const { record } = (await added.json()) as { record: { name: string; value: string } };
    dns.set(record.name, [record.value]);
    expect((await page.request.post(`/api/v1/orgs/${operator.orgId}/sso/domains/${domain}/check`, { headers: own })).status()).toBe(202);
    await expect
      .poll(async () => ((await (await page.request.get(`/api/v1/orgs/${operator.orgId}/sso/domains`)).json()) as { domain: string; signsIn: boolean }[]).find((d) => d.domain === domain)?.signsIn, {
        message: `${domain} proven`,
        timeout: 20_000,
      })
      .toBe(true);

    await signInWithSso();
    await expect(newcomer.getByRole("heading", { level: 1, name: "Apps" })).toBeVisible();
    const [created] = await stack.db.select({ id: user.id }).from(user).where(eq(user.email, email));
    const [m] = await stack.db.select({ role: membership.role }).from(membership).where(and(eq(membership.orgId, operator.orgId), eq(membership.userId, created!.id)));
    expect(m?.role).toBe("developer");

    // The organization requires SSO (set in the database: the owner's own session is a password one,
    // and the API refuses to let them lock themselves out). The owner's password session is refused
    // with a 403 that says to sign in with SSO; the newcomer's SSO session reaches the organization.
    await stack.db.update(ssoConnection).set({ requireSso: true }).where(eq(ssoConnection.orgId, operator.orgId));
    const refused = await page.request.get(`/api/v1/orgs/${operator.orgId}/members`);
    expect(refused.status()).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: "forbidden", message: expect.stringContaining("single sign-on") } });
    expect(await (await page.request.get("/api/v1/account")).json()).toMatchObject({ ssoRequiredBy: [operator.orgId] });
    await page.goto("/");
    await expect(page).toHaveURL(/\/login\?sso=required$/);
    await expect(page.getByRole("form", { name: "Single sign-on" }).getByRole("alert")).toContainText("requires single sign-on");
    expect((await newcomer.request.get(`${panel}/api/v1/orgs/${operator.orgId}/members`)).status()).toBe(200);
  } finally {
    await stack.db.delete(ssoConnection).where(eq(ssoConnection.orgId, operator.orgId));
    await stack.db.delete(ssoEmailDomain).where(eq(ssoEmailDomain.orgId, operator.orgId));
    await stack.db.delete(user).where(eq(user.email, email));
    await context.close();
    await dns.close();
  }
});
