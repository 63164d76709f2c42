// The API reference (issue 24, item 6): Settings › API reference renders the panel's own OpenAPI
// document with Swagger UI, bundled with the panel (the browser here has no internet: every request
// the page makes must go to the panel itself), and the document is served without auth.
import { expect, test } from "../fixtures/test";

test("the API reference lists the API's routes from the panel's own document, fetching nothing from elsewhere", async ({ signedIn: page, stack }) => {
  const origin = new URL(stack.env.baseURL).origin;
  const elsewhere: string[] = [];
  page.on("request", (req) => {
    const url = new URL(req.url());
    if (url.protocol.startsWith("http") && url.origin !== origin) elsewhere.push(req.url());
  });

  await page.goto("/settings/api");
  await expect(page.getByRole("heading", { level: 1, name: "API reference" })).toBeVisible();
  // Swagger UI's title and one operation of the Projects tag, by method and path.
  await expect(page.getByText("Levelrail API", { exact: false }).first()).toBeVisible({ timeout: 30_000 });
  const listProjects = page.locator(".opblock-get").filter({ hasText: "/api/v1/projects" }).first();
  await expect(listProjects).toBeVisible();
  await expect(page.locator(".opblock-post").filter({ hasText: "/api/v1/environments/{envId}/services/{service}/deploy" })).toHaveCount(1);
  expect(elsewhere, "requests to anything but the panel").toEqual([]);
});

test("GET /api/v1/openapi.json answers without a session or a token", async ({ playwright, stack }) => {
  const anonymous = await playwright.request.newContext({ baseURL: stack.env.baseURL });
  try {
    const res = await anonymous.get("/api/v1/openapi.json");
    expect(res.status()).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toContain("/api/v1/projects");
    // Every other route still needs one.
    expect((await anonymous.get("/api/v1/projects")).status()).toBe(401);
  } finally {
    await anonymous.dispose();
  }
});
