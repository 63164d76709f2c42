// The Nodes page (issue 26 item 3, docs/operating/nodes-and-swarm.md) on the single Docker engine the suite runs on: an
// admin reaches it from the header and sees that engine as the one node (role, state, resources
// as `docker info` reports them), told plainly that draining and labels need a Docker Swarm, with no
// control offered. Changing a node is an installation administrator's alone: the organization's
// owner gets a 403 saying so, an installation administrator the engine's own answer (409 on one
// engine). A viewer and a developer read the nodes too.
import { randomUUID } from "node:crypto";
import type { Browser } from "@playwright/test";
import { eq } from "drizzle-orm";
import { createOperator } from "@levelrail/auth";
import { user } from "@levelrail/db/schema/auth";
import { installationAdmin } from "@levelrail/db/schema/operator";
import { membership } from "@levelrail/db/schema/orgs";
import type { Role } from "@levelrail/spec/roles";
import type { Stack } from "../fixtures/stack";
import { expect, test } from "../fixtures/test";
import { signInThroughApi } from "../fixtures/ui";

test("an owner sees the one engine, its role, state and resources, and that draining and labels need a Docker Swarm", async ({ signedIn: page, stack, bearer, operator }) => {
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

  // The organization's owner changes no node: that is an installation administrator's.
  const nodeUrl = `/api/v1/nodes/${encodeURIComponent(body.nodes[0]!.id)}`;
  const owner = await bearer.patch(nodeUrl, { data: { availability: "drain" } });
  expect(owner.status()).toBe(403);
  expect(((await owner.json()) as { error: { message: string } }).error.message).toContain("needs an installation administrator");
  // An installation administrator gets the engine's answer: a change on one engine is a 409 that names the swarm it needs.
  await stack.db.insert(installationAdmin).values({ userId: operator.ctx.actor.userId });
  try {
    const refused = await bearer.patch(nodeUrl, { data: { availability: "drain" } });
    expect(refused.status()).toBe(409);
    const error = ((await refused.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("conflict");
    expect(error.message).toMatch(/needs? a Docker Swarm/);
  } finally {
    await stack.db.delete(installationAdmin).where(eq(installationAdmin.userId, operator.ctx.actor.userId));
  }
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
  test(`a ${role} reads the nodes, with no control`, async ({ browser, stack, operator }) => {
    const member = await memberPage(browser, stack, operator.orgId, role);
    try {
      const api = await member.page.request.get("/api/v1/nodes");
      expect(api.status()).toBe(200);
      const info = (await stack.docker.info()) as { Name: string };

      await member.page.goto("/nodes");
      await expect(member.page.getByRole("heading", { level: 1, name: "Nodes" })).toBeVisible();
      const main = member.page.getByRole("main");
      await expect(main.getByRole("region", { name: info.Name, exact: true })).toHaveCount(1);
      for (const name of ["Drain", "Pause", "Activate", "Edit labels"]) await expect(main.getByRole("button", { name, exact: true })).toHaveCount(0);
    } finally {
      await member.close();
      await member.remove();
    }
  });
}
