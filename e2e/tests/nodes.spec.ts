// The Nodes page (issue 26 item 3, CONTRACT §12) on the single Docker engine the suite runs on: an
// admin reaches it from the header and sees that engine as the one node (role, state, resources
// as `docker info` reports them), told plainly that draining and labels need a Docker Swarm, with no
// control offered, and the API refusing the change (409). A viewer and a developer get the API's own
// 403 as the page's error.
import { randomUUID } from "node:crypto";
import type { Browser } from "@playwright/test";
import { eq } from "drizzle-orm";
import { createOperator } from "@levelrail/auth";
import { user } from "@levelrail/db/schema/auth";
import { membership } from "@levelrail/db/schema/orgs";
import type { Role } from "@levelrail/spec/roles";
import type { Stack } from "../fixtures/stack";
import { expect, test } from "../fixtures/test";
import { signInThroughApi } from "../fixtures/ui";

test("an admin sees the one engine, its role, state and resources, and that draining and labels need a Docker Swarm", async ({ signedIn: page, stack, bearer }) => {
  const listed = await bearer.get("/api/v1/nodes");
  expect(listed.status()).toBe(200);
  const body = (await listed.json()) as { engine: string; nodes: { id: string; change: unknown }[] };
  expect(body.engine, "the suite runs on one Docker engine, not a swarm").toBe("single");
  expect(body.nodes).toHaveLength(1);
  expect(body.nodes[0]!.change).toBeNull();

  const info = (await stack.docker.info()) as { Name: string; NCPU: number; MemTotal: number; ServerVersion: string };
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Nodes", exact: true }).click();
  await expect(page).toHaveURL(/\/nodes$/);
  await expect(page.getByRole("heading", { level: 1, name: "Nodes" })).toBeVisible();

  const node = page.getByRole("region", { name: info.Name, exact: true });
  await expect(node).toHaveCount(1);
  const fact = (term: string) => node.locator(`dt:text-is("${term}") + dd`);
  await expect(fact("Role")).toHaveText("manager, leader");
  await expect(fact("State")).toHaveText("ready");
  await expect(fact("Availability")).toHaveText("active");
  await expect(fact("Resources")).toHaveText(`${info.NCPU} CPU${info.NCPU === 1 ? "" : "s"}, ${(info.MemTotal / 1024 ** 3).toFixed(1)} GiB`);
  await expect(fact("Engine")).toContainText(`Docker ${info.ServerVersion}`);
  await expect(page.getByTestId("single-engine-note")).toContainText("Draining, pausing and node labels need a Docker Swarm");

  for (const name of ["Drain", "Pause", "Activate", "Edit labels"]) await expect(page.getByRole("button", { name, exact: true })).toHaveCount(0);

  // The API says the same: a change on one engine is a 409 that names the swarm it needs.
  const refused = await bearer.patch(`/api/v1/nodes/${encodeURIComponent(body.nodes[0]!.id)}`, { data: { availability: "drain" } });
  expect(refused.status()).toBe(409);
  const error = ((await refused.json()) as { error: { code: string; message: string } }).error;
  expect(error.code).toBe("conflict");
  expect(error.message).toMatch(/needs? a Docker Swarm/);
});

/** A member of the operator's organization with `role`, signed in in a browser context of their own. */
async function memberPage(browser: Browser, stack: Stack, orgId: string, role: Role) {
  const password = `pw-${randomUUID()}`;
  const member = await createOperator(stack.auth, `e2e-nodes-${role}-${randomUUID().slice(0, 8)}@e2e.levelrail.test`, password);
  await stack.db.insert(membership).values({ orgId, userId: member.id, role });
  const context = await browser.newContext({ baseURL: stack.env.baseURL });
  const page = await context.newPage();
  await signInThroughApi(page, stack, { email: member.email, password });
  return { page, close: () => context.close(), remove: () => stack.db.delete(user).where(eq(user.id, member.id)) };
}

for (const role of ["viewer", "developer"] as const) {
  test(`a ${role} gets the API's 403 as the page's error`, async ({ browser, stack, operator }) => {
    const member = await memberPage(browser, stack, operator.orgId, role);
    try {
      const api = await member.page.request.get("/api/v1/nodes");
      expect(api.status()).toBe(403);
      const message = ((await api.json()) as { error: { message: string } }).error.message;
      expect(message).toContain("needs the admin role");

      await member.page.goto("/nodes");
      await expect(member.page.getByRole("heading", { level: 1, name: "Nodes" })).toBeVisible();
      // In the page's main part: Next's route announcer is an alert of its own.
      const main = member.page.getByRole("main");
      await expect(main.getByRole("alert")).toHaveText(message);
      await expect(main.getByRole("region")).toHaveCount(0);
    } finally {
      await member.close();
      await member.remove();
    }
  });
}
