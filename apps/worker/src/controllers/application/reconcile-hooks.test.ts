import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Roles, isPreDeployContainer } from "@levelrail/spec/naming";
import { APP_ID, IMAGE_ID, IMAGE_REF, NEW, NOW, OLD, SVC_ID, MemoryRecorder, labelsOf, spec, testbed } from "./testbed";

beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ["Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

const PRE = ["npm", "run", "migrate"];
const POST = ["sh", "-c", "echo warm"];
const PRE_NAME = `${NEW}-pre-deploy`;
const ENTRY = (container: string) => ({ appId: APP_ID, app: "shop", service: "web", container, port: 8080 });

const withHooks = (hooks: { preDeploy?: string[]; postDeploy?: string[] }, strategy: "blue-green" | "recreate" = "blue-green") => {
  const recorder = new MemoryRecorder();
  const t = testbed({ release: { spec: spec({ strategy, hooks: { preDeploy: hooks.preDeploy ?? null, postDeploy: hooks.postDeploy ?? null, timeoutSeconds: 120 } }) }, hooks: recorder });
  t.engine.images.set(IMAGE_REF, IMAGE_ID);
  t.live();
  t.mesh.set(SVC_ID, ENTRY(OLD));
  return { t, recorder };
};

describe("application controller: hooks", () => {
  it("the pre-deploy hook runs in a one-off container of the new image before the service container, and is recorded", async () => {
    const { t, recorder } = withHooks({ preDeploy: PRE });
    await t.converge();
    const calls = t.engine.calls;
    expect(calls.slice(0, 3)).toEqual([`create ${PRE_NAME}`, `start ${PRE_NAME}`, `remove ${PRE_NAME}`]);
    expect(calls.indexOf(`remove ${PRE_NAME}`)).toBeLessThan(calls.indexOf(`create ${NEW}`));
    expect(t.names()).toEqual([NEW, OLD].sort());
    expect(recorder.runs).toEqual([expect.objectContaining({ phase: "pre", command: PRE, outcome: "succeeded" })]);
    expect(t.store.statuses.some((s) => s.step === "pre-deploy" && s.activeContainer === OLD)).toBe(true);
  });

  it("a failing pre-deploy hook creates no service container and leaves the old one serving", async () => {
    const { t } = withHooks({ preDeploy: PRE });
    t.engine.script = (c) => (isPreDeployContainer(c) ? { chunks: ["no such table\n"], exit: 1 } : { chunks: [], exit: "runs" });
    await t.converge();
    expect(t.names()).toEqual([OLD]);
    expect(t.store.release).toMatchObject({ outcome: "failed", message: `pre-deploy hook ${JSON.stringify(PRE)} failed with exit code 1` });
    expect(t.store.status).toMatchObject({ phase: "failed", activeContainer: OLD });
    expect(t.mesh.get(SVC_ID)).toEqual(ENTRY(OLD));
  });

  it("recreate: a failing pre-deploy hook runs before the old container is stopped, so nothing is stopped", async () => {
    const { t } = withHooks({ preDeploy: PRE }, "recreate");
    t.engine.script = (c) => (isPreDeployContainer(c) ? { chunks: [], exit: 1 } : { chunks: [], exit: "runs" });
    await t.converge();
    expect(t.engine.get(OLD)?.state).toBe("running");
    expect(t.engine.calls.some((c) => c.startsWith("stop"))).toBe(false);
  });

  it("the post-deploy hook runs inside the new container once it is ready, before the switch and the old one's removal", async () => {
    const { t, recorder } = withHooks({ postDeploy: POST });
    await t.converge();
    expect(t.engine.calls.indexOf(`exec ${NEW}`)).toBeGreaterThan(t.engine.calls.indexOf(`start ${NEW}`));
    expect(t.mesh.get(SVC_ID)).toEqual(ENTRY(NEW));
    expect(t.engine.get(NEW)?.restartPolicy).toBe("unless-stopped");
    expect(recorder.runs).toEqual([expect.objectContaining({ phase: "post", command: POST, outcome: "succeeded" })]);
  });

  it("a failing post-deploy hook removes the new container, keeps the old one, and never switches", async () => {
    const { t } = withHooks({ postDeploy: POST });
    t.engine.execScript = () => ({ chunks: ["cache warm failed\n"], exit: 4 });
    await t.converge();
    expect(t.names()).toEqual([OLD]);
    expect(t.mesh.get(SVC_ID)).toEqual(ENTRY(OLD));
    expect(t.store.status).toMatchObject({ phase: "failed", activeContainer: OLD, message: `post-deploy hook ${JSON.stringify(POST)} failed with exit code 4; ${OLD} keeps serving` });
  });

  it("a pass that finds the release converged runs no hook", async () => {
    const { t, recorder } = withHooks({ preDeploy: PRE, postDeploy: POST });
    await t.converge();
    vi.setSystemTime(NOW + 60_000);
    await t.converge();
    const runs = recorder.runs.length;
    const calls = t.engine.calls.length;
    await t.converge();
    expect(recorder.runs).toHaveLength(runs);
    expect(t.engine.calls).toHaveLength(calls);
  });

  it("a Deploy that changes nothing adopts the running container of another release and runs no hook", async () => {
    const recorder = new MemoryRecorder();
    const t = testbed({ release: { spec: spec({ hooks: { preDeploy: PRE, postDeploy: POST, timeoutSeconds: 120 } }) }, hooks: recorder });
    t.engine.images.set(IMAGE_REF, IMAGE_ID);
    t.live(NEW, "rel-1");
    await t.converge();
    expect(recorder.runs).toEqual([]);
    expect(t.engine.calls).toEqual([]);
    expect(t.store.release?.outcome).toBe("succeeded");
  });

  it("a crash mid-hook: this release's hook container is adopted, another release's is removed", async () => {
    const { t, recorder } = withHooks({ preDeploy: PRE });
    t.store.release!.outcome = "deploying";
    t.store.release!.imageId = IMAGE_ID;
    t.engine.add({ name: PRE_NAME, state: "exited", exitCode: 0, labels: labelsOf("rel-2", Roles.preDeploy) });
    t.engine.add({ name: `${OLD}-pre-deploy`, state: "exited", exitCode: 0, labels: labelsOf("rel-1", Roles.preDeploy) });
    await t.converge();
    expect(t.engine.calls.slice(0, 2)).toEqual([`remove ${OLD}-pre-deploy`, `remove ${PRE_NAME}`]);
    expect(t.engine.calls.filter((c) => c === `create ${PRE_NAME}`)).toEqual([]); // adopted, not made again
    expect(recorder.runs).toEqual([expect.objectContaining({ attempt: `id-${PRE_NAME}`, outcome: "succeeded" })]);
    expect(t.names()).toEqual([NEW, OLD].sort());
  });

  it("a hook container of the same name made by another release is a leftover, not adopted", async () => {
    const { t, recorder } = withHooks({ preDeploy: PRE });
    t.engine.add({ name: PRE_NAME, state: "exited", exitCode: 0, labels: labelsOf("rel-0", Roles.preDeploy) });
    await t.converge();
    expect(t.engine.calls.slice(0, 2)).toEqual([`remove ${PRE_NAME}`, `create ${PRE_NAME}`]);
    expect(recorder.runs).toHaveLength(1);
  });

  it("once the service container exists, a hook container left behind is removed and the hook is not run again", async () => {
    const { t, recorder } = withHooks({ preDeploy: PRE });
    t.store.release!.outcome = "deploying";
    t.store.release!.imageId = IMAGE_ID;
    t.engine.add({ name: NEW, state: "created", labels: labelsOf("rel-2") });
    t.engine.add({ name: PRE_NAME, state: "exited", exitCode: 0, labels: labelsOf("rel-2", Roles.preDeploy) });
    await t.converge();
    expect(t.engine.calls[0]).toBe(`remove ${PRE_NAME}`);
    expect(recorder.runs).toEqual([]);
    expect(t.engine.get(NEW)?.state).toBe("running");
  });
});
