import { randomUUID } from "node:crypto";
import { expect, test } from "../fixtures/test";
import { hydrated } from "../fixtures/ui";

test("signed out, every page sends to /login and the API answers 401 with the error shape", async ({ page, request }) => {
  const someEnvironment = randomUUID();
  for (const path of ["/", "/settings", "/services/anything", `/environments/${someEnvironment}`, `/environments/${someEnvironment}/services/anything`]) {
    await page.goto(path);
    await expect(page, `${path} redirects to /login`).toHaveURL(/\/login$/);
    await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  }

  const unauthenticated = { error: { code: "unauthenticated", message: expect.any(String) } };
  const list = await request.get("/api/v1/services");
  expect(list.status()).toBe(401);
  expect(await list.json()).toEqual(unauthenticated);

  const badToken = await request.get("/api/v1/services", { headers: { authorization: "Bearer lr_not-a-token" } });
  expect(badToken.status()).toBe(401);
  expect(await badToken.json()).toEqual(unauthenticated);

  const write = await request.post(`/api/v1/environments/${someEnvironment}/apps`, { data: { name: "never-written" } });
  expect(write.status()).toBe(401);
  expect(await write.json()).toEqual(unauthenticated);

  const choose = await request.put("/api/v1/me/environment", { data: { environmentId: someEnvironment } });
  expect(choose.status()).toBe(401);
  expect(await choose.json()).toEqual(unauthenticated);
});

test("sign in through the form: a wrong password is refused, the right one opens the dashboard; sign out", async ({
  page,
  operator,
}) => {
  await page.goto("/login");
  const signIn = page.getByRole("button", { name: "Sign in" });
  await hydrated(signIn);

  await page.getByLabel("Email").fill(operator.email);
  await page.getByLabel("Password").fill(`${operator.password}-wrong`);
  await signIn.click();
  // Scoped to the page's main landmark: Next.js keeps its own (empty) route announcer alert outside it.
  await expect(page.getByRole("main").getByRole("alert")).toHaveText(/invalid email or password/i);
  await expect(page).toHaveURL(/\/login$/);

  await page.getByLabel("Password").fill(operator.password);
  await signIn.click();
  await expect(page.getByRole("heading", { level: 1, name: "Apps" })).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav).toContainText(operator.email);

  // The session is an httpOnly cookie: page scripts cannot read it.
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name.endsWith("session_token"));
  expect(session, `a session cookie among ${cookies.map((c) => c.name).join(", ")}`).toBeDefined();
  expect(session?.httpOnly).toBe(true);
  expect(await page.evaluate(() => document.cookie)).not.toContain("session_token");

  const signOut = nav.getByRole("button", { name: "Sign out" });
  await hydrated(signOut);
  await signOut.click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto("/");
  await expect(page).toHaveURL(/\/login$/);
  expect((await page.request.get("/api/v1/services")).status()).toBe(401);
});
