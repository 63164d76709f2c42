// The API reference: Settings › API reference draws the panel's own OpenAPI document on the server
// (the browser here has no internet: every request the page makes must go to the panel itself), and
// the document is served without auth.
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
  // The document's title and one operation of the Projects tag, by method and path.
  await expect(page.getByText("Levelrail API", { exact: false }).first()).toBeVisible();
  const listProjects = page.locator(".api-op-get").filter({ has: page.locator(".api-path", { hasText: /^\/api\/v1\/projects$/ }) }).first();
  await expect(listProjects).toBeVisible();
  await expect(page.locator(".api-op-post").filter({ hasText: "/api/v1/environments/{envId}/services/{service}/deploy" })).toHaveCount(1);
  // An operation opens in place and names its body's schema, which links to the schema's fields below.
  const create = page.locator(".api-op-post").filter({ has: page.locator(".api-path", { hasText: /^\/api\/v1\/projects$/ }) });
  await create.locator("summary").click();
  const bodyLink = create.locator("h4", { hasText: "Body" }).locator("xpath=following-sibling::code[1]//a");
  const schemaName = (await bodyLink.textContent())!;
  await bodyLink.click();
  await expect(page.locator(`#schema-${schemaName}`)).toBeInViewport();
  await expect(page.locator(`#schema-${schemaName} .api-fields code`).first()).toBeVisible();
  expect(elsewhere, "requests to anything but the panel").toEqual([]);
});

test("GET /api/v1/openapi.json and the spec's JSON Schema answer without a session or a token", async ({ playwright, stack }) => {
  const anonymous = await playwright.request.newContext({ baseURL: stack.env.baseURL });
  try {
    const res = await anonymous.get("/api/v1/openapi.json");
    expect(res.status()).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toContain("/api/v1/projects");
    // The spec file's JSON Schema beside it, for editors, public too.
    const schema = await anonymous.get("/api/v1/spec.schema.json");
    expect(schema.status()).toBe(200);
    expect(schema.headers()["content-type"]).toMatch(/^application\/schema\+json/);
    expect(((await schema.json()) as { properties: Record<string, unknown> }).properties.spec).toBeTruthy();
    // Every other route still needs one.
    expect((await anonymous.get("/api/v1/projects")).status()).toBe(401);
  } finally {
    await anonymous.dispose();
  }
});
