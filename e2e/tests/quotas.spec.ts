// Per-organization quotas over real HTTP (issue 12, item 5): GET /api/v1/orgs/{id}/quotas answers
// limit, use and source; the N+1th app is a 409 with the JSON error naming the quota and its value,
// and nothing is written; Settings shows the table. (Another organization's quotas answer 404: the
// route is in e2e/support/api-routes.ts, which the tenancy spec walks.)
import { eq } from "drizzle-orm";
import { app, service } from "@levelrail/db/schema/services";
import { createApp } from "@levelrail/services/app/app";
import { createService } from "@levelrail/services/service/write";
import { setOrgQuotas } from "@levelrail/services/org/quota";
import { expect, test } from "../fixtures/test";

test("quotas refuse the N+1th app with a 409 naming the quota, over HTTP, and Settings shows them", async ({ bearer, operator, stack, signedIn: page }) => {
  await setOrgQuotas(stack.db, operator.orgId, { apps: 2, domains: 1 }, undefined);
  const appsUrl = `/api/v1/environments/${operator.environmentId}/apps`;
  for (const name of ["q1", "q2"]) expect((await bearer.post(appsUrl, { data: { name } })).status()).toBe(201);

  const third = await bearer.post(appsUrl, { data: { name: "q3" } });
  expect(third.status()).toBe(409);
  const body = (await third.json()) as { error: { code: string; message: string; field?: string } };
  expect(body.error.code).toBe("quota_exceeded");
  expect(body.error.message).toContain("organization quota reached: apps (2)");
  expect(body.error.field).toBeUndefined();
  expect((await stack.db.select().from(app).where(eq(app.orgId, operator.orgId))).map((a) => a.name).sort()).toEqual(["q1", "q2"]);

  // A domain over the quota: 409 naming the field.
  await createService({ ctx: operator.ctx, envId: operator.environmentId, input: { name: "web", app: "q1", image: "registry.example.com/x:1", port: 80 } });
  const patch = await bearer.patch(`/api/v1/environments/${operator.environmentId}/services/web`, {
    data: { domains: ["one.quota.localhost", "two.quota.localhost"] },
  });
  expect(patch.status()).toBe(409);
  expect(((await patch.json()) as { error: unknown }).error).toMatchObject({ code: "quota_exceeded", field: "domains", message: expect.stringContaining("domains (1)") });
  expect((await stack.db.select({ domains: service.domains }).from(service).where(eq(service.orgId, operator.orgId)))[0]!.domains).toEqual([]);

  const quotas = await bearer.get(`/api/v1/orgs/${operator.orgId}/quotas`);
  expect(quotas.status()).toBe(200);
  expect(await quotas.json()).toEqual({
    quotas: {
      apps: { limit: 2, used: 2, source: "organization" },
      services: { limit: 200, used: 1, source: "default" },
      databases: { limit: 20, used: 0, source: "default" },
      domains: { limit: 1, used: 0, source: "organization" },
      channels: { limit: 20, used: 0, source: "default" },
    },
  });

  await page.goto("/settings/quotas");
  const table = page.getByRole("table", { name: "Quotas" });
  await expect(table.getByRole("row", { name: /^apps/ })).toContainText("2 (set for this organization)");
  await expect(table.getByRole("row", { name: /^services/ })).toContainText("200 (installation default)");
  // The service layer refuses the same way (what the API called).
  await expect(createApp({ ctx: operator.ctx, envId: operator.environmentId, input: { name: "q3" } })).rejects.toMatchObject({ code: "quota_exceeded" });
});
