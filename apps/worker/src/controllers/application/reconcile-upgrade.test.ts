import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Labels } from "@levelrail/spec/naming";
import { legacyContainerName, legacyPreDeployLabels, legacyServiceLabels } from "@levelrail/testkit/legacy";
import { APP_ID, DRAIN_MS, ENV_ID, IMAGE_ID, IMAGE_REF, NETWORK, NEW, NOW, SHORT, SVC_ID, MemoryRecorder, spec, testbed } from "./testbed";

beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ["Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** The live container as the version before service-id naming left it: old name, no environment, no role. */
const LEGACY = legacyContainerName(SHORT, "web", IMAGE_ID, "");
const entry = (container: string) => ({ appId: APP_ID, app: "shop", service: "web", container, port: 8080 });
const HOOKS = { preDeploy: ["npm", "run", "migrate"], postDeploy: ["sh", "-c", "echo warm"], timeoutSeconds: 120 };

/** A service whose release went live under the earlier version, with its hook container left behind. */
function upgraded(image: { labels?: Record<string, string> } = {}) {
  const hooks = new MemoryRecorder();
  const finishedAt = NOW - 86_400_000;
  const t = testbed({ release: { spec: spec({ hooks: HOOKS }), imageId: IMAGE_ID, outcome: "succeeded", finishedAt }, hooks });
  t.engine.images.set(IMAGE_REF, IMAGE_ID);
  if (image.labels) t.engine.imageLabels.set(IMAGE_ID, image.labels);
  t.engine.add({
    name: LEGACY,
    labels: { ...image.labels, ...legacyServiceLabels(SHORT, SVC_ID, APP_ID, "rel-2") },
    state: "running",
    startedAt: finishedAt,
    createdAt: finishedAt,
    restartPolicy: "unless-stopped",
    addresses: { [NETWORK]: "10.201.0.2" },
  });
  t.engine.add({ name: `${LEGACY}-pre-deploy`, labels: legacyPreDeployLabels(SHORT, SVC_ID, APP_ID, "rel-2"), state: "exited", exitCode: 0 });
  t.mesh.set(SVC_ID, entry(LEGACY));
  return { t, hooks, finishedAt };
}

describe("application controller: upgrading from an earlier version's container names", () => {
  it("replaces the live container once, blue-green: the new one starts and takes the traffic before the old one drains and goes", async () => {
    const { t, hooks, finishedAt } = upgraded();
    expect(await t.converge()).toEqual({ requeueAfterMs: DRAIN_MS });
    // Switched: the new one is active, the old one still runs for requests in flight.
    expect(t.names()).toEqual([LEGACY, NEW].sort());
    expect(t.mesh.get(SVC_ID)).toEqual(entry(NEW));
    expect(t.engine.get(NEW)).toMatchObject({ state: "running", restartPolicy: "unless-stopped" });
    expect(t.engine.get(NEW)!.labels).toMatchObject({ [Labels.environment]: ENV_ID, [Labels.role]: "service", [Labels.release]: "rel-2", [Labels.service]: SVC_ID });

    // An early wake-up (another event) does not cut the drain short.
    vi.setSystemTime(NOW + DRAIN_MS - 1);
    expect(await t.converge()).toEqual({ requeueAfterMs: 1 });
    expect(t.names()).toEqual([LEGACY, NEW].sort());

    vi.setSystemTime(NOW + DRAIN_MS);
    await t.converge();
    expect(t.names()).toEqual([NEW]);
    // Blue-green order, each step once: the old hook container went first, the old service container last.
    expect(t.engine.calls.filter((c) => !c.startsWith("exec"))).toEqual([`remove ${LEGACY}-pre-deploy`, `create ${NEW}`, `start ${NEW}`, `remove ${LEGACY}`]);
    expect(t.store.status).toMatchObject({ phase: "running", activeContainer: NEW });
    // No deploy: no hook ran again, no deploy sample, the release as it was.
    expect(hooks.runs).toEqual([]);
    expect(t.deploys).toEqual([]);
    expect(t.store.release).toMatchObject({ outcome: "succeeded", finishedAt });

    // Converged: a further pass changes nothing.
    const calls = t.engine.calls.length;
    await t.converge();
    expect(t.engine.calls.length).toBe(calls);
  });

  it("until the new one is ready, the old one is the service's active container (published, reported)", async () => {
    const { t } = upgraded();
    t.probes.ready = false;
    await t.converge();
    expect(t.names()).toEqual([LEGACY, NEW].sort());
    expect(t.mesh.get(SVC_ID)).toEqual(entry(LEGACY));
    expect(t.store.status).toMatchObject({ phase: "deploying", step: "probing", activeContainer: LEGACY });
  });

  it("an image carrying a levelrail.role label changes nothing: the old container is still the service's, the new one says service", async () => {
    const { t } = upgraded({ labels: { [Labels.role]: "pre-deploy" } });
    expect(t.engine.get(LEGACY)!.labels[Labels.role]).toBe("pre-deploy"); // what Docker's label merge showed on the old one
    await t.converge();
    vi.setSystemTime(NOW + DRAIN_MS);
    await t.converge();
    expect(t.names()).toEqual([NEW]);
    expect(t.engine.get(NEW)!.labels[Labels.role]).toBe("service");
    expect(t.engine.calls.indexOf(`start ${NEW}`)).toBeLessThan(t.engine.calls.indexOf(`remove ${LEGACY}`));
  });

  it("a replacement that never gets ready is removed; the old one keeps serving and no deploy is recorded as failed", async () => {
    const { t } = upgraded();
    t.probes.ready = false;
    await t.converge();
    vi.setSystemTime(NOW + 60_000);
    await t.converge();
    expect(t.names()).toEqual([LEGACY]);
    expect(t.mesh.get(SVC_ID)).toEqual(entry(LEGACY));
    expect(t.store.release).toMatchObject({ outcome: "succeeded" });
    expect(t.deploys).toEqual([]);
  });
});
