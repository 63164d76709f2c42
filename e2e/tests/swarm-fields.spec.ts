// A service's replicas and placement (issue 26, docs/operating/services-and-deploys.md#replicas-and-placement) on the service page, on the single
// Docker engine the suite runs on: the Settings tab shows both with their defaults and the note that
// they need a swarm; the form's own check names a bad label; a save of 2 replicas is the API's 409,
// shown under its field, and nothing is saved. On a swarm the status card lists where each replica runs.
import { hostname } from "node:os";
import { getService, getStatus } from "@levelrail/services/service/view";
import { waitFor } from "@levelrail/testkit/wait";
import { seedService } from "../fixtures/services";
import { expect, test } from "../fixtures/test";
import { hydrated, openService, showTab } from "../fixtures/ui";

test("replicas and placement are on the settings form; on one engine 2 replicas are refused with the API's 409 under the field", async ({ signedIn: page, operator }) => {
  const seeded = await seedService(operator, { prefix: "scale", deployed: false });
  await openService(page, seeded);
  await showTab(page, "settings");
  const config = page.getByRole("region", { name: "Configuration" });
  await expect(config.getByTestId("scale-replicas")).toHaveText("1");
  await expect(config.getByTestId("scale-placement")).toHaveText("any node");

  const form = config.getByRole("form", { name: "Replicas and placement" });
  const save = form.getByRole("button", { name: "Save replicas and placement" });
  await hydrated(save);
  await expect(form.getByTestId("scale-engine-note")).toContainText("replicas stay at 1");
  const replicas = form.getByLabel("Replicas", { exact: true });
  const placement = form.getByLabel("Placement (node labels)", { exact: true });
  await expect(replicas).toHaveValue("1");
  await expect(replicas).toHaveAccessibleDescription(/more needs a swarm/);
  await expect(placement).toHaveValue("");

  // The form's own check (the API's schema, loaded on submit): the product's own labels are refused.
  await placement.fill("levelrail.mtu=1500");
  await save.click();
  await expect(placement).toHaveAttribute("aria-invalid", "true");
  await expect(placement).toHaveAccessibleDescription(/levelrail\.mtu: must not start with 'levelrail\.'/);

  // Well-formed, but one engine runs one container: the API's 409, under the field it names.
  const answered = page.waitForResponse((r) => r.request().method() === "PATCH" && r.url().includes(`/services/${seeded.name}`));
  await placement.fill("");
  await replicas.fill("2");
  await save.click();
  expect((await answered).status()).toBe(409);
  await expect(replicas).toHaveAttribute("aria-invalid", "true");
  await expect(replicas).toHaveAccessibleDescription(/more than 1 needs a Docker Swarm; this installation runs on one engine \(see Nodes\)/);
  await expect(placement).toHaveAttribute("aria-invalid", "false");
  await expect(config.getByRole("status")).toHaveCount(0);
  await expect(config.getByTestId("scale-replicas")).toHaveText("1");
  expect(await getService({ ctx: operator.ctx, envId: operator.ctx.envId, name: seeded.name })).toMatchObject({ replicas: 1, placement: {} });
});

test("the status card says where the serving copy runs: on one engine the active container, on this engine's host, with its address", async ({ signedIn: page, operator, images: _images }) => {
  const seeded = await seedService(operator, { prefix: "where", deployed: true });
  const status = () => getStatus({ ctx: operator.ctx, envId: operator.ctx.envId, name: seeded.name });
  // The engine's name, as the Nodes page shows the one node (its host's name).
  const replicas = await waitFor(`the status of ${seeded.name} to name where it runs`, async () => {
    const st = await status();
    return st.replicas.length > 0 ? st : undefined;
  });
  expect(replicas.replicas).toEqual([{ name: replicas.activeContainer, node: hostname(), address: expect.stringMatching(/^\d+\.\d+\.\d+\.\d+$/) }]);

  await openService(page, seeded);
  const card = page.getByRole("region", { name: "Status" });
  const list = card.getByRole("list", { name: "Where each replica runs" });
  await expect(list.getByRole("listitem")).toHaveText([`${replicas.activeContainer} on ${hostname()} ${replicas.replicas[0]!.address}`]);
  await expect(card.getByText("Active container", { exact: true })).toBeVisible();
});
