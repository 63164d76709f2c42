// End to end on the real engine: a deploy that fails (a container that prints its secret and exits;
// a pre-deploy hook that prints it and fails) reaches a subscribed webhook as deploy.failed (and
// hook.failed), signed, and no delivery, request body or worker log holds the secret value.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notificationDelivery } from "@levelrail/db/schema/notifications";
import { createApp } from "@levelrail/services/app/app";
import { putSecret } from "@levelrail/services/env/secrets";
import { createChannel } from "@levelrail/services/notifications/channels";
import { deployService } from "@levelrail/services/release/deploy";
import { getStatus } from "@levelrail/services/service/view";
import { createService, patchService } from "@levelrail/services/service/write";
import { ensureTestImage } from "@levelrail/testkit/images";
import { validSignature, webhookReceiver } from "@levelrail/testkit/receivers";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "../../../test/harness";

const SECRET_VALUE = `notify-s3cr3t-${Math.random().toString(36).slice(2)}`;
/** Prints its TOKEN and exits before it is ever ready. */
const LEAK_IMAGE = { tag: "levelrail-test/notify-leak:v1", body: "leak\n", healthy: true, cmd: ["/bin/sh", "-c", 'echo "token=$TOKEN"; exit 1'] } as const;

let s: Awaited<ReturnType<typeof setupSuite>>;
let hook: Awaited<ReturnType<typeof webhookReceiver>>;
let secret: string;
let channelId: string;

beforeAll(async () => {
  s = await setupSuite("notify");
  await ensureTestImage(s.runtime.docker, LEAK_IMAGE);
  hook = await webhookReceiver();
  await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
  const c = await createChannel({ ctx: s.ctx, input: { kind: "webhook", name: "ops", url: hook.url, events: ["deploy.failed", "hook.failed", "deploy.succeeded"] } });
  secret = c.secret!;
  channelId = c.id;
  await s.startWorker({ notifications: { backoffMs: [200, 200], timeoutMs: 2000 } });
}, 180_000);

afterAll(async () => {
  await hook?.close();
  await s?.teardown();
});

/** The requests the receiver got for `event` about `service`, as parsed bodies. */
const received = (event: string, service: string) =>
  hook.requests
    .filter((r) => r.headers["x-levelrail-event"] === event)
    .map((r) => ({ r, body: JSON.parse(r.body.toString()) as { service: { name: string }; message: string; release: { outcome: string } | null } }))
    .filter((x) => x.body.service.name === service);

async function noSecretAnywhere() {
  const stored = JSON.stringify(await s.db.select().from(notificationDelivery).where(eq(notificationDelivery.channelId, channelId)));
  for (const text of [stored, ...hook.requests.map((r) => r.body.toString()), s.logs.join("\n")]) {
    expect(text.includes(SECRET_VALUE)).toBe(false);
    expect(text.includes(secret)).toBe(false);
  }
}

describe("a failed deploy notifies", () => {
  it("a container that exits before it is ready: deploy.failed, signed, its last output redacted", async () => {
    await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "web", app: "shop", image: LEAK_IMAGE.tag, port: 8080, healthPath: "/healthz", readyBudgetSeconds: 10 } });
    await putSecret({ ctx: s.ctx, envId: s.ctx.envId, name: "web", key: "TOKEN", input: { value: SECRET_VALUE } });
    const rel = await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: "web", input: {} });
    const [got] = await waitFor("deploy.failed of web at the receiver", async () => {
      const r = received("deploy.failed", "web");
      return r.length ? r : undefined;
    }, { timeoutMs: 90_000 });
    expect(validSignature(secret, got!.r.body, got!.r.headers["x-levelrail-signature"])).toBe(true);
    // Its last output is in the message, the secret in it redacted (boolean checks: a failure never prints it).
    expect(got!.body.message.includes("token=[redacted]")).toBe(true);
    expect(got!.body).toMatchObject({ event: "deploy.failed", environment: { name: "production" }, service: { name: "web", app: "shop" }, release: { id: rel.id, outcome: "failed" } });
    await noSecretAnywhere();
  });

  it("a failing pre-deploy hook: hook.failed and deploy.failed; the old container keeps serving", async () => {
    await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "api", app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } });
    await putSecret({ ctx: s.ctx, envId: s.ctx.envId, name: "api", key: "TOKEN", input: { value: SECRET_VALUE } });
    const first = await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: "api", input: {} });
    await s.waitRelease("api", first.id);
    await waitFor("deploy.succeeded of api at the receiver", async () => (received("deploy.succeeded", "api").length ? true : undefined), { timeoutMs: 30_000 });

    await patchService({ ctx: s.ctx, envId: s.ctx.envId, name: "api", input: { hooks: { preDeploy: ["/bin/sh", "-c", 'echo "migrating with $TOKEN"; exit 3'] } } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: "api", input: {} });
    const [hookFailed] = await waitFor("hook.failed of api", async () => {
      const r = received("hook.failed", "api");
      return r.length ? r : undefined;
    }, { timeoutMs: 60_000 });
    expect(hookFailed!.body.message).toContain("failed with exit code 3");
    await waitFor("deploy.failed of api", async () => (received("deploy.failed", "api").length ? true : undefined), { timeoutMs: 30_000 });
    const st = await getStatus({ ctx: s.ctx, envId: s.ctx.envId, name: "api" });
    expect(st.activeContainer).not.toBeNull();
    expect(st.message).toContain("keeps serving");
    await noSecretAnywhere();
  });
});
