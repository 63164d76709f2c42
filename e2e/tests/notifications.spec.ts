// Notifications in the browser (issue 14, item 5): add a webhook channel on Settings (to a receiver on
// loopback this test starts: the test panel runs with LEVELRAIL_ALLOW_PRIVATE_TARGETS=true, an
// installation's setting that no form offers), see its signing secret once, press "Send test" and
// see it delivered; the receiver checks the signature with that secret.
import { validSignature, webhookReceiver } from "@levelrail/testkit/receivers";
import { expect, test } from "../fixtures/test";

test("add a webhook channel, see its secret once, Send test, and see it delivered and signed", async ({ signedIn: page, bearer }) => {
  const hook = await webhookReceiver();
  try {
    await page.goto("/settings/notifications");
    const card = page.getByRole("region", { name: "Notifications" });
    await expect(card).toBeVisible();

    // No channel can allow private targets for itself: that is the installation's setting.
    await expect(card.getByLabel(/private targets/i)).toHaveCount(0);
    await card.getByLabel("Name", { exact: true }).fill("ops alerts");
    await card.getByLabel("URL").fill(hook.url);
    await card.getByLabel("Deploy failed").check();
    await card.getByLabel("Crash loop started").check();
    await card.getByRole("button", { name: "Add channel" }).click();
    await expect(card.getByRole("status").filter({ hasText: "Added channel ops alerts" })).toBeVisible();
    const secret = (await card.getByTestId("channel-secret").textContent())?.trim() ?? "";
    // Boolean checks: a failing assertion never prints the secret.
    expect(/^lrwh_/.test(secret)).toBe(true);

    const row = card.getByRole("row", { name: /ops alerts/ });
    await expect(row).toContainText(hook.url);
    await expect(row).toContainText("Deploy failed, Crash loop started");
    await row.getByRole("button", { name: "Send test to ops alerts" }).click();
    await expect(row.getByRole("status")).toHaveText("Test delivered to ops alerts");

    expect(hook.requests.length).toBe(1);
    const got = hook.requests[0]!;
    expect(validSignature(secret, got.body, got.headers["x-levelrail-signature"])).toBe(true);
    expect(JSON.parse(got.body.toString())).toMatchObject({ event: "test" });

    // The delivery log shows it; the secret is not in any answer of the API.
    await row.getByRole("button", { name: "Deliveries of ops alerts" }).click();
    const log = card.getByRole("table", { name: "Delivery log of ops alerts" });
    await expect(log.getByRole("row").nth(1)).toContainText("delivered");
    const listed = await bearer.get("/api/v1/notification-channels");
    expect((await listed.text()).includes(secret)).toBe(false);

    // After a reload the secret is gone for good.
    await page.reload();
    await expect(page.getByTestId("channel-secret")).toHaveCount(0);
    await page.getByRole("region", { name: "Notifications" }).getByRole("button", { name: "Delete channel ops alerts" }).click();
    await expect(page.getByRole("region", { name: "Notifications" }).getByRole("row", { name: /ops alerts/ })).toHaveCount(0);
  } finally {
    await hook.close();
  }
});
