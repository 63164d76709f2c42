import { describe, expect, it } from "vitest";
import type { ManagedContainer } from "@levelrail/docker";
import { Labels, type Role, Roles } from "@levelrail/spec/naming";
import type { ReleaseSpec } from "@levelrail/spec/service";
import { type Desired, type Observed, type Step, plan } from "./plan";
import { APP_ID, ENV_ID, IMAGE_ID, IMAGE_REF, NETWORK, NEW, NOW, OLD, SHORT, SVC_ID, labelsOf, spec } from "./testbed";
import type { DesiredRelease, DesiredService } from "./ports";
import { legacyContainerName, legacyPreDeployLabels, legacyServiceLabels } from "@levelrail/testkit/legacy";

const PRE = `${NEW}-pre-deploy`;

type Rel = Partial<Omit<DesiredRelease, "spec">> & { spec?: Partial<ReleaseSpec> };

function desired(rel: Rel | null = {}, service: Partial<DesiredService> | null = {}): Desired {
  const release: DesiredRelease | null = rel && {
    id: "rel-2",
    restartNonce: "",
    imageId: IMAGE_ID,
    outcome: "deploying",
    finishedAt: null,
    message: "",
    ...rel,
    spec: spec(rel.spec),
  };
  return {
    serviceId: SVC_ID,
    service: service && {
      id: SVC_ID,
      name: "web",
      appId: APP_ID,
      appName: "shop",
      environmentId: ENV_ID,
      orgId: "org-1",
      registryCredentialId: null,
      envTarget: { orgId: "org-1", projectId: "p", environmentId: "e", serviceId: SVC_ID, env: {}, secretKeys: [], storageTargetId: null, databaseEnv: {} },
      release,
      ...service,
    },
    shortName: SHORT,
    drainMs: 2000,
    upstreamDns: ["192.0.2.53"],
    defaultHookTimeoutSeconds: 300,
  };
}

type Over = Partial<ManagedContainer> & { release?: string; role?: Role };
function container(name: string, over: Over = {}): ManagedContainer {
  const { release = "rel-2", role, ...rest } = over;
  return {
    id: `id-${name}`,
    name,
    state: "running",
    labels: labelsOf(release, role ?? Roles.service),
    startedAt: NOW - 10_000,
    finishedAt: 0,
    exitCode: null,
    createdAt: NOW - 10_000,
    restartCount: 0,
    restartPolicy: "no",
    addresses: { [NETWORK]: "10.201.0.3" },
    ...rest,
  };
}
const old = (over: Partial<ManagedContainer> = {}) => container(OLD, { release: "rel-1", restartPolicy: "unless-stopped", createdAt: NOW - 3_600_000, addresses: { [NETWORK]: "10.201.0.2" }, ...over });
const fresh = (over: Over = {}) => container(NEW, over);
/** The new container after the switch. */
const switched = (over: Partial<ManagedContainer> = {}) => fresh({ restartPolicy: "unless-stopped", ...over });

function observed(over: Partial<Observed> = {}): Observed {
  return {
    now: NOW,
    containers: [],
    hookContainers: [],
    env: { ok: true, env: { LOG_LEVEL: "info" } },
    localImageId: null,
    network: { name: NETWORK, gateway: "10.201.0.1" },
    probes: {},
    ...over,
  };
}

const entry = (c: string) => ({ appId: APP_ID, app: "shop", service: "web", container: c, port: 8080 });
const HOOKS = { preDeploy: ["npm", "run", "migrate"], postDeploy: ["sh", "-c", "echo warm"], timeoutSeconds: 120 };

/** [situation, desired, observed, what the step must be (a subset)]. */
type Row = [string, Desired, Observed, Record<string, unknown>];

const nothingToRun: Row[] = [
  ["service deleted: everything of it goes, hooks included", desired({}, null), observed({ containers: [old()], hookContainers: [container(PRE, { role: "pre-deploy" })] }), { kind: "remove-all", remove: [old(), container(PRE, { role: "pre-deploy" })] }],
  ["service deleted, nothing left", desired({}, null), observed(), { kind: "remove-all", remove: [] }],
  ["no release: stopped", desired(null), observed({ containers: [old()] }), { kind: "stopped", remove: [old()], status: expect.objectContaining({ phase: "stopped", message: "not deployed yet" }) }],
];

const failedRelease: Row[] = [
  ["failed; the old container keeps serving and stays published", desired({ outcome: "failed", message: "image x could not be pulled" }), observed({ containers: [old()] }), {
    kind: "hold-failed",
    publish: entry(OLD),
    status: expect.objectContaining({ phase: "failed", activeContainer: OLD, message: `image x could not be pulled; ${OLD} keeps serving`, crashLooping: false }),
  }],
  ["failed with nothing serving (recreate removed the old one)", desired({ outcome: "failed", message: "boom" }), observed(), { kind: "hold-failed", publish: null, status: expect.objectContaining({ activeContainer: null, message: "boom" }) }],
  ["failed; the old container crash-loops: still published, reported", desired({ outcome: "failed", message: "boom" }), observed({ containers: [old({ state: "restarting", restartCount: 4, exitCode: 1 })] }), {
    kind: "hold-failed",
    publish: entry(OLD),
    status: expect.objectContaining({ crashLooping: true, restarts: 4 }),
  }],
];

const beforeContainers: Row[] = [
  ["a declared value cannot be resolved: fail before any pull", desired({ imageId: null, outcome: "pending" }), observed({ containers: [old()], env: { ok: false, problem: "secret API_KEY is declared but not set" } }), { kind: "fail", message: "secret API_KEY is declared but not set", remove: null, active: old() }],
  ["no image pinned, none on the engine: pull", desired({ imageId: null }), observed(), { kind: "pull", ref: "registry.example.com/shop:1.4.2", active: null }],
  ["no image pinned, a fixed tag on the engine: pin it, no pull", desired({ imageId: null }), observed({ localImageId: IMAGE_ID }), { kind: "pin-image", ref: IMAGE_REF, imageId: IMAGE_ID, active: null }],
  [":latest is pulled on every deploy even when present", desired({ imageId: null, spec: { image: "shop:latest" } }), observed({ localImageId: IMAGE_ID }), { kind: "pull", ref: "shop:latest" }],
  ["the pinned image left the host before its container was made: fail naming it, the old one serves on", desired({ restartNonce: "n1" }), observed({ containers: [old()], pinnedImageGone: true }), {
    kind: "fail",
    message: `image ${IMAGE_ID} (${IMAGE_REF}), which this release runs, is no longer on this host; deploy ${IMAGE_REF} again to pull it`,
    remove: null,
    active: old(),
  }],
  ["no app network yet", desired(), observed({ network: null }), { kind: "ensure-network" }],
  ["an older release's hook container is a leftover", desired(), observed({ containers: [old()], hookContainers: [container(`${OLD}-pre-deploy`, { role: "pre-deploy", release: "rel-1" })] }), { kind: "remove-leftovers", remove: [container(`${OLD}-pre-deploy`, { role: "pre-deploy", release: "rel-1" })] }],
  ["a hook container of the same name made by another release is a leftover", desired({ spec: { hooks: HOOKS } }), observed({ hookContainers: [container(PRE, { role: "pre-deploy", release: "rel-0" })] }), { kind: "remove-leftovers" }],
  ["a pending release begins", desired({ outcome: "pending" }), observed({ containers: [old()] }), { kind: "begin" }],
];

const cutover: Row[] = [
  ["blue-green: create beside the old one, which keeps serving", desired(), observed({ containers: [old()] }), { kind: "create", preDeploy: null, stopFirst: [], active: old(), options: expect.objectContaining({ name: NEW, Image: IMAGE_ID }) }],
  ["the pre-deploy hook runs first, in the new image", desired({ spec: { hooks: HOOKS } }), observed({ containers: [old()] }), {
    kind: "create",
    preDeploy: expect.objectContaining({ options: expect.objectContaining({ name: PRE }), run: expect.objectContaining({ phase: "pre", argv: HOOKS.preDeploy, timeoutSeconds: 120 }) }),
  }],
  ["crash after the pre-deploy container started: it is adopted, not removed", desired({ spec: { hooks: HOOKS } }), observed({ containers: [old()], hookContainers: [container(PRE, { role: "pre-deploy" })] }), { kind: "create", preDeploy: expect.objectContaining({ options: expect.objectContaining({ name: PRE }) }) }],
  ["recreate: the old one stops first, and nothing is said to serve", desired({ spec: { strategy: "recreate" } }), observed({ containers: [old()] }), { kind: "create", stopFirst: [old()], active: old() }],
  ["crash after create, before start: start it (adopted by name)", desired(), observed({ containers: [old(), fresh({ state: "created", addresses: {} })] }), { kind: "start", container: fresh({ state: "created", addresses: {} }), status: expect.objectContaining({ step: "starting", activeContainer: OLD }) }],
  ["crash after start, before ready (no probe result yet): probe it", desired(), observed({ containers: [old(), fresh()] }), {
    kind: "await-readiness",
    url: "http://10.201.0.3:8080/healthz",
    since: NOW - 10_000,
    budgetMs: 60_000,
    status: expect.objectContaining({ step: "probing", activeContainer: OLD, message: `waiting for ${NEW} to be ready (GET /healthz: not probed yet, 10s of 60s)` }),
  }],
  ["started but no address yet", desired(), observed({ containers: [fresh({ addresses: {} })] }), { kind: "await-readiness", url: null, status: expect.objectContaining({ message: expect.stringContaining("no address on the app network yet") }) }],
  ["not ready, within budget: keep waiting on the prober", desired(), observed({ containers: [fresh()], probes: { [`id-${NEW}`]: { ready: false, detail: "HTTP 503" } } }), { kind: "await-readiness", status: expect.objectContaining({ message: expect.stringContaining("HTTP 503") }) }],
  ["not ready past the budget: fail, remove the new one, the old one keeps serving", desired(), observed({ containers: [old(), fresh({ createdAt: NOW - 60_000 })], probes: { [`id-${NEW}`]: { ready: false, detail: "HTTP 503" } } }), {
    kind: "fail",
    message: `${NEW} was not ready within 60s (GET /healthz on port 8080: HTTP 503)`,
    remove: fresh({ createdAt: NOW - 60_000 }),
    active: old(),
  }],
  ["past the budget but never probed (adopted after a worker restart): probed once first", desired(), observed({ containers: [fresh({ createdAt: NOW - 600_000 })] }), { kind: "await-readiness" }],
  ["past the budget with no address: fail", desired(), observed({ containers: [fresh({ createdAt: NOW - 600_000, addresses: {} })] }), { kind: "fail", message: expect.stringContaining("no address on the app network yet") }],
  ["the new container exited before ready: fail with its code and output", desired(), observed({ containers: [old(), fresh({ state: "exited", exitCode: 1 })] }), { kind: "fail", message: `${NEW} exited with code 1 before it was ready`, logsOf: fresh({ state: "exited", exitCode: 1 }), active: old() }],
  ["the new container restarted before ready: fail too", desired(), observed({ containers: [fresh({ restartCount: 1, exitCode: 2 })] }), { kind: "fail", message: `${NEW} exited with code 2 before it was ready` }],
  ["ready: switch, after the post-deploy hook", desired({ spec: { hooks: HOOKS } }), observed({ containers: [old(), fresh()], probes: { [`id-${NEW}`]: { ready: true, detail: "HTTP 200" } } }), {
    kind: "switch",
    cutover: true,
    postDeploy: expect.objectContaining({ phase: "post", argv: HOOKS.postDeploy }),
    others: 1,
    active: old(),
  }],
  ["crash during the post-deploy hook: the restarted worker probes again, then switches", desired({ spec: { hooks: HOOKS } }), observed({ containers: [old(), fresh()] }), { kind: "await-readiness" }],
  ["a Deploy that changes nothing adopts the running container and runs no hook", desired({ spec: { hooks: HOOKS } }), observed({ containers: [fresh({ release: "rel-1" })], probes: { [`id-${NEW}`]: { ready: true, detail: "HTTP 200" } } }), { kind: "switch", cutover: false, postDeploy: null }],
  ["crash after switch, before drain: old ones drain for what is left", desired({ outcome: "succeeded", finishedAt: NOW - 500 }), observed({ containers: [old(), switched()] }), {
    kind: "drain",
    publish: entry(NEW),
    requeueAfterMs: 1500,
    status: expect.objectContaining({ phase: "deploying", step: "cutover", message: `${NEW} is active; draining 1 old container(s) for 1.5s` }),
  }],
  ["drain over: the old ones go", desired({ outcome: "succeeded", finishedAt: NOW - 2000 }), observed({ containers: [old(), switched()] }), { kind: "done", publish: entry(NEW), remove: [old()], status: expect.objectContaining({ phase: "running", activeContainer: NEW, message: "" }) }],
  ["converged with a hook container left behind: it goes, the hook is not run again", desired({ outcome: "succeeded", finishedAt: NOW - 60_000, spec: { hooks: HOOKS } }), observed({ containers: [switched()], hookContainers: [container(PRE, { role: "pre-deploy" })] }), { kind: "remove-leftovers" }],
  ["the live container was removed by hand: made again", desired({ outcome: "succeeded", finishedAt: NOW - 60_000 }), observed(), { kind: "create", options: expect.objectContaining({ name: NEW }) }],
  ["made again, running, not yet switched to: it proves itself first", desired({ outcome: "succeeded", finishedAt: NOW - 60_000 }), observed({ containers: [fresh()] }), { kind: "await-readiness" }],
];

const LIVE = desired({ outcome: "succeeded", finishedAt: NOW - 600_000 });
const live: Row[] = [
  ["running normally", LIVE, observed({ containers: [switched()] }), { kind: "done", remove: [], requeueAfterMs: null, status: expect.objectContaining({ phase: "running", message: "", crashLooping: false, restarts: 0, lastExit: null }) }],
  ["exited: left to the engine, not removed, not failed", LIVE, observed({ containers: [switched({ state: "exited", exitCode: 137, restartCount: 3, finishedAt: NOW - 1000 })] }), {
    kind: "done",
    remove: [],
    status: expect.objectContaining({
      phase: "running",
      activeContainer: NEW,
      message: "container exited with code 137; the engine restarts it (3 restarts)",
      restarts: 3,
      lastExit: { code: 137, at: new Date(NOW - 1000).toISOString() },
    }),
    requeueAfterMs: 9000,
  }],
  ["exited for 10 s and not restarting (the engine gave up on it): started again", LIVE, observed({ containers: [switched({ state: "exited", exitCode: 137, restartCount: 0, finishedAt: NOW - 10_000 })] }), {
    kind: "start",
    container: expect.objectContaining({ name: NEW }),
    status: expect.objectContaining({ phase: "running", message: `${NEW} exited with code 137 and the engine did not restart it; starting it again` }),
  }],
  ["restarting: crash-looping", LIVE, observed({ containers: [switched({ state: "restarting", exitCode: 1, restartCount: 7 })] }), { kind: "done", remove: [], status: expect.objectContaining({ phase: "running", crashLooping: true, restarts: 7 }) }],
  ["up again after 5 quick restarts: crash-looping until a minute passes", LIVE, observed({ containers: [switched({ restartCount: 5, exitCode: 1, startedAt: NOW - 10_000 })] }), {
    kind: "done",
    requeueAfterMs: 50_000,
    status: expect.objectContaining({ phase: "running", crashLooping: true, message: "container keeps crashing (5 restarts, last exit code 1); the engine restarts it" }),
  }],
  ["up for long after restarts: not crash-looping, the restarts still reported", LIVE, observed({ containers: [switched({ restartCount: 5, exitCode: 1, startedAt: NOW - 120_000 })] }), { kind: "done", requeueAfterMs: null, status: expect.objectContaining({ crashLooping: false, restarts: 5, message: "", lastExit: { code: 1, at: null } }) }],
  ["one restart: reported, not a loop", LIVE, observed({ containers: [switched({ restartCount: 1, exitCode: 137, startedAt: NOW - 1000 })] }), { kind: "done", status: expect.objectContaining({ crashLooping: false, restarts: 1 }) }],
];

/**
 * Upgrade: the release went live under a version whose names left out the service's id and whose
 * service containers carried no environment and no role. Its container is replaced once, blue-green.
 */
const LEGACY = legacyContainerName(SHORT, "web", IMAGE_ID, "");
const legacy = (over: Partial<ManagedContainer> = {}) =>
  container(LEGACY, { restartPolicy: "unless-stopped", createdAt: NOW - 86_400_000, startedAt: NOW - 86_400_000, addresses: { [NETWORK]: "10.201.0.2" }, labels: legacyServiceLabels(SHORT, SVC_ID, APP_ID, "rel-2"), ...over });
const legacyHook = () => container(`${LEGACY}-pre-deploy`, { state: "exited", exitCode: 0, labels: legacyPreDeployLabels(SHORT, SVC_ID, APP_ID, "rel-2") });
const UPGRADED = desired({ outcome: "succeeded", finishedAt: NOW - 86_400_000, spec: { hooks: HOOKS } });
const ready = (at: number) => ({ [`id-${NEW}`]: { ready: true, detail: "HTTP 200", at } });
const upgrade: Row[] = [
  ["an earlier version's hook container left over: it goes first", UPGRADED, observed({ containers: [legacy()], hookContainers: [legacyHook()] }), { kind: "remove-leftovers", remove: [legacyHook()] }],
  ["its live container under the old name: a new one is made beside it, no hook runs, the old one stays active", UPGRADED, observed({ containers: [legacy()] }), {
    kind: "create",
    options: expect.objectContaining({ name: NEW, Labels: expect.objectContaining({ "levelrail.environment": ENV_ID, "levelrail.role": "service", "levelrail.release": "rel-2" }) }),
    preDeploy: null,
    stopFirst: [],
    active: legacy(),
  }],
  ["an image's own levelrail.role label on the old container does not make it a hook's", UPGRADED, observed({ containers: [legacy({ labels: { ...legacyServiceLabels(SHORT, SVC_ID, APP_ID, "rel-2"), "levelrail.role": "pre-deploy" } })] }), { kind: "create", active: expect.objectContaining({ name: LEGACY }) }],
  ["the new one starts while the old one serves", UPGRADED, observed({ containers: [legacy(), fresh({ state: "created" })] }), { kind: "start", status: expect.objectContaining({ activeContainer: LEGACY }) }],
  ["ready: switch without a hook, no deploy recorded, the release left as it was", UPGRADED, observed({ containers: [legacy(), fresh()], probes: ready(NOW) }), { kind: "switch", container: fresh(), postDeploy: null, cutover: false, replacement: true, others: 1, active: legacy() }],
  ["switched: the old one drains from the moment the new one was ready, not the release's old finish", UPGRADED, observed({ containers: [legacy(), switched()], probes: ready(NOW - 500) }), { kind: "drain", publish: entry(NEW), requeueAfterMs: 1500 }],
  ["switched, the worker restarted (no probe in memory): the drain counts from the new one's start", UPGRADED, observed({ containers: [legacy(), switched({ startedAt: NOW - 1200 })] }), { kind: "drain", requeueAfterMs: 800 }],
  ["drained: the old one goes, once", UPGRADED, observed({ containers: [legacy(), switched()], probes: ready(NOW - 2000) }), { kind: "done", publish: entry(NEW), remove: [legacy()] }],
  ["failed to get ready: the new one goes, the old one keeps serving", UPGRADED, observed({ containers: [legacy(), fresh({ createdAt: NOW - 60_000 })], probes: { [`id-${NEW}`]: { ready: false, detail: "HTTP 503" } } }), { kind: "fail", remove: fresh({ createdAt: NOW - 60_000 }), active: legacy() }],
  ["a recreate service is replaced the way it deploys: the old one stops first", desired({ outcome: "succeeded", finishedAt: NOW - 86_400_000, spec: { strategy: "recreate" } }), observed({ containers: [legacy()] }), { kind: "create", stopFirst: [legacy()] }],
];

describe.each([
  ["nothing to run", nothingToRun],
  ["an earlier version's containers (upgrade)", upgrade],
  ["a failed release", failedRelease],
  ["before any container", beforeContainers],
  ["the cutover, every crash point", cutover],
  ["a live release's container (the engine's to restart)", live],
])("plan: %s", (_, rows) => {
  it.each(rows)("%s", (_situation, d, o, expected) => {
    const before = structuredClone({ d, o });
    const step: Step = plan(d, o);
    expect(step).toMatchObject(expected);
    expect({ d, o }).toStrictEqual(before); // pure: nothing it was given changed
  });
});

describe("plan: the container it would create", () => {
  it("joins the app network with the mesh DNS first, then the upstream nameservers", () => {
    const step = plan(desired(), observed());
    if (step.kind !== "create") throw new Error(step.kind);
    expect(step.options.HostConfig).toMatchObject({ NetworkMode: NETWORK, Dns: ["10.201.0.1", "192.0.2.53"], DnsSearch: ["shop.lrt.internal"], RestartPolicy: { Name: "no" } });
    expect(step.options.Labels).toMatchObject({ [Labels.service]: SVC_ID, [Labels.environment]: ENV_ID, [Labels.release]: "rel-2", [Labels.role]: "service" });
    expect(step.options.Env).toEqual(["LOG_LEVEL=info"]);
  });

  it("needs the environment observed whenever a container may be made", () => {
    expect(() => plan(desired(), observed({ env: null }))).toThrow(/environment was not observed/);
  });
});
