// The Deploys page at fleet size (issue 27, item 3): its per-service tables list the 20 most active
// services, say how many there are, and "Show all" lists every one. The fleet's releases are rows
// only (failed deploys of an image on a loopback registry nobody serves), as the worker records
// them: what the page reads, with no container to start.
import { deploySample } from "@levelrail/db/schema/fleet";
import { release } from "@levelrail/db/schema/services";
import { createApp } from "@levelrail/services/app/app";
import { createService } from "@levelrail/services/service/write";
import { LOOPBACK_IMAGE } from "../fixtures/resources";
import { expect, test } from "../fixtures/test";
import { hydrated } from "../fixtures/ui";

const SERVICES = 22;
const SPEC = { image: LOOPBACK_IMAGE, port: 8080, healthPath: "/", readyBudgetSeconds: 60, strategy: "blue-green", env: {}, hooks: { preDeploy: null, postDeploy: null, timeoutSeconds: 300 } } as const;

test("with more than 20 services released, each per-service table lists the 20 most active and Show all lists every one", async ({ signedIn: page, operator }) => {
  const ctx = operator.ctx;
  await createApp({ ctx, envId: ctx.envId, input: { name: "fleet" } });
  for (let i = 1; i <= SERVICES; i++) {
    const name = `svc-${String(i).padStart(2, "0")}`;
    const svc = await createService({ ctx, envId: ctx.envId, input: { name, app: "fleet", image: LOOPBACK_IMAGE, port: 8080 } });
    // svc-01 is released twice: the most active, listed first.
    for (let n = 0; n < (i === 1 ? 2 : 1); n++) {
      const [rel] = await ctx.db
        .insert(release)
        .values({ orgId: operator.orgId, serviceId: svc.id, kind: "deploy", spec: SPEC, restartNonce: "", createdBy: operator.email, outcome: "failed", startedAt: new Date(), finishedAt: new Date() })
        .returning();
      await ctx.db.insert(deploySample).values({ orgId: operator.orgId, serviceId: svc.id, releaseId: rel!.id, outcome: "failed", durationMs: 1000 });
    }
  }

  await page.goto("/deploys");
  for (const [table, most] of [
    ["By service", "most deployed"],
    ["DORA by service", "most released"],
  ] as const) {
    const rows = page.getByRole("table", { name: table, exact: true }).locator("tbody tr");
    await expect(rows).toHaveCount(20);
    await expect(rows.first()).toContainText("svc-01");
    const section = page.getByRole("region", { name: table, exact: true });
    await expect(section.getByText(`The 20 ${most} of ${SERVICES} services.`)).toBeVisible();
    const showAll = section.getByRole("button", { name: `Show all ${SERVICES}` });
    await hydrated(showAll);
    await showAll.click();
    await expect(rows).toHaveCount(SERVICES);
    // Every one listed: the line and its button are gone.
    await expect(section.getByRole("button", { name: /^Show all/ })).toHaveCount(0);
  }
});
