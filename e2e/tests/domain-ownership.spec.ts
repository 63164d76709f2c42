import { getService } from "@levelrail/services/service/view";
import { challengeName } from "@levelrail/spec/domains";
import { startTestDns } from "@levelrail/testkit/dns";
import { seedService } from "../fixtures/services";
import { uniqueName } from "../fixtures/stack";
import { expect, test } from "../fixtures/test";
import { hydrated, openService, showTab } from "../fixtures/ui";

test("a domain outside *.localhost shows the TXT record to create, waits for it, and routes once Check now finds it", async ({ signedIn: page, operator, stack, request, images: _images }) => {
  // The stack's worker checks ownership records against this server only (LEVELRAIL_DNS_RESOLVER).
  const dns = await startTestDns({ port: stack.env.dnsPort });
  try {
    const seeded = await seedService(operator, { prefix: "owned", deployed: true });
    const domain = `${uniqueName("shop")}.example.com`;
    const record = challengeName(domain);
    const viaCaddy = async () => {
      const res = await request.get(`http://127.0.0.1:${stack.env.ingressHttpPort}/`, { headers: { Host: domain }, timeout: 5_000 });
      return res.status();
    };

    await openService(page, seeded);
    await showTab(page, "hooks");
    const card = page.getByRole("region", { name: "Hooks and domains" });
    const form = card.getByRole("form", { name: "Hooks and routing" });
    const save = form.getByRole("button", { name: "Save hooks and routing" });
    await hydrated(save);
    await form.getByLabel("Domains", { exact: true }).fill(domain);
    await save.click();
    await expect(card.getByRole("status").first()).toHaveText("Saved hooks and routing");

    // The record to create, with the organization's token, and the last check's result.
    const token = (await getService({ ctx: operator.ctx, envId: operator.ctx.envId, name: seeded.name })).domainStatus[domain]!.record!.value;
    const proofs = card.getByRole("table", { name: "Domain ownership" });
    const row = proofs.getByRole("row").filter({ hasText: domain });
    await expect(row.getByTestId("domain-status")).toHaveText("pending");
    await expect(row.getByText(record, { exact: true })).toBeVisible();
    await expect(row.getByText(token, { exact: true })).toBeVisible();
    await expect(row).toContainText(`no TXT record at ${record}`, { timeout: 20_000 });
    expect(dns.questions).toContain(`TXT ${record}`);
    // Until then Caddy serves the domain nothing of the app.
    expect(await viaCaddy()).toBe(404);

    dns.set(record, [token]);
    await card.getByRole("button", { name: "Check now" }).click();
    await expect(row.getByTestId("domain-status")).toHaveText("verified", { timeout: 20_000 });
    await expect(row).toContainText(`${record} holds the token`);
    await expect.poll(viaCaddy, { message: `GET / for ${domain} through Caddy`, timeout: 20_000 }).toBe(200);
  } finally {
    await dns.close();
  }
});
