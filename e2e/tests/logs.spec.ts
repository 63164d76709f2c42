import { createApp } from "@levelrail/services/app/app";
import { deployService } from "@levelrail/services/release/deploy";
import { getStatus } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { type TestImage, ensureTestImage } from "@levelrail/testkit/images";
import { waitFor } from "@levelrail/testkit/wait";
import { DEPLOY_TIMEOUT } from "../fixtures/services";
import { uniqueName } from "../fixtures/stack";
import { expect, test } from "../fixtures/test";
import { openService } from "../fixtures/ui";

/** Serves :8080 and prints `<tag> 1`, `<tag> 2`, … every 100 ms; ready (GET /healthz) from its 15th line. */
const numbered = (tag: string): TestImage => ({
  tag: `levelrail-e2e/numbered:${tag}`,
  body: `${tag}\n`,
  healthy: false,
  files: { ready: "ok\n" },
  cmd: [
    "/bin/sh",
    "-c",
    `/bin/busybox httpd -p 8080 -h /www; i=1; while true; do echo "${tag} $i"; [ "$i" = 15 ] && /bin/busybox cp /ready /www/healthz; i=$((i+1)); /bin/busybox usleep 100000; done`,
  ],
});
const V1 = numbered("v1");
const V2 = numbered("v2");

test("the Logs view shows live lines, then a deploy's switch marker and the new container's lines from its first", async ({ signedIn: page, operator, stack }) => {
  for (const img of [V1, V2]) await ensureTestImage(stack.docker, img);
  const ctx = operator.ctx;
  const app = uniqueName("logs");
  const name = uniqueName("web");
  await createApp({ ctx, envId: ctx.envId, input: { name: app } });
  await createService({ ctx, envId: ctx.envId, input: { name, app, image: V1.tag, port: 8080, healthPath: "/healthz" } });
  const deployed = async (image?: string) => {
    const rel = await deployService({ ctx, envId: ctx.envId, name, input: image ? { image } : {} });
    await waitFor(
      `release ${rel.id} of ${name} to go live`,
      async () => {
        const st = await getStatus({ ctx, envId: ctx.envId, name });
        return st.lastDeploy?.id === rel.id && st.lastDeploy.outcome === "succeeded" ? st : undefined;
      },
      { timeoutMs: DEPLOY_TIMEOUT, intervalMs: 250 },
    );
  };
  await deployed();

  await openService(page, { environmentId: ctx.envId, name }, "logs");
  const view = page.getByRole("region", { name: "Logs", exact: true });
  const logs = view.getByRole("log", { name: "Container logs" });
  const row = (text: string) => logs.locator(".log-line").filter({ hasText: new RegExp(`\\b${text}$`) });
  // Live: lines keep arriving without a reload.
  await expect(row("v1 20")).toHaveCount(1, { timeout: 20_000 });
  await expect(row("v1 40")).toHaveCount(1, { timeout: 20_000 });

  await deployed(V2.tag);
  const marker = logs.getByTestId("log-marker");
  await expect(marker).toHaveCount(1, { timeout: 20_000 });
  await expect(marker).toContainText("switched to");
  // The new container's lines from its very first (printed while it was getting ready), after the marker.
  await expect(row("v2 1")).toHaveCount(1);
  await expect(row("v2 30")).toHaveCount(1, { timeout: 20_000 });
  const order = await logs.locator(".log-line, .log-marker").allTextContents();
  const markerAt = order.findIndex((t) => t.includes("switched to"));
  expect(order.findIndex((t) => /\bv2 1$/.test(t))).toBeGreaterThan(markerAt);
  expect(order.slice(markerAt + 1).some((t) => /\bv1 \d+$/.test(t))).toBe(false);

  // The search box filters the kept lines (markers stay).
  await view.getByLabel("Search", { exact: true }).fill("v2 2");
  await expect(row("v2 1")).toHaveCount(0);
  await expect(row("v2 2")).toHaveCount(1);
  await expect(marker).toHaveCount(1);
});
