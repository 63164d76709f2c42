import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { isPreDeployContainer } from "@levelrail/spec/naming";
import { REDACTED } from "@levelrail/spec/redact";
import { IMAGE_ID, IMAGE_REF, MemoryRecorder, NOW, SVC_ID, spec, testbed } from "./testbed";

beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ["Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

const SECRET = "tok-9f8e7d6c5b4a";
const PASSWORD = "registry-pw-0a1b2c";

/** A service with the secret TOKEN (and, with `login`, a registry credential), its image on the engine. */
function secretService(o: { preDeploy?: string[]; login?: boolean } = {}) {
  const hooks = new MemoryRecorder();
  const auth = { username: "u", password: PASSWORD, serveraddress: "registry.example.com" };
  const t = testbed({
    release: { spec: spec({ hooks: { preDeploy: o.preDeploy ?? null, postDeploy: null, timeoutSeconds: 60 } }) },
    service: {
      registryCredentialId: o.login ? "cred-1" : null,
      envTarget: { serviceId: SVC_ID, orgId: "org-1", projectId: "p", environmentId: "e", env: {}, secretKeys: ["TOKEN"], storageTargetId: null, databaseEnv: {} },
    },
    envStores: { secrets: { secretsOf: async () => ({ TOKEN: SECRET }) } },
    registry: { registryAuth: async () => auth },
    hooks,
  });
  return { t, hooks };
}

/** Everything the controller stored about the deploy, as one text. */
const stored = (t: ReturnType<typeof testbed>, hooks: MemoryRecorder) => JSON.stringify([t.store.statuses, [...t.store.releases.values()], hooks.runs]);

describe("application controller: secrets never stored in plaintext", () => {
  it("a hook that prints the secret (split across chunks) is stored with [redacted] in its place", async () => {
    const { t, hooks } = secretService({ preDeploy: ["migrate"] });
    t.engine.images.set(IMAGE_REF, IMAGE_ID);
    t.engine.script = (c) => (isPreDeployContainer(c) ? { chunks: [`token=${SECRET.slice(0, 6)}`, `${SECRET.slice(6)}\n`], exit: 1 } : { chunks: [], exit: "runs" });
    await t.converge();
    // Boolean checks only: a failing assertion never prints the secret.
    expect(hooks.runs[0]?.output === `token=${REDACTED}\n`).toBe(true);
    expect(stored(t, hooks).includes(SECRET)).toBe(false);
  });

  it("a container that prints the secret and exits: the release and status messages hold [redacted]", async () => {
    const { t, hooks } = secretService();
    t.engine.images.set(IMAGE_REF, IMAGE_ID);
    t.engine.script = () => ({ chunks: [`connecting with ${SECRET}\n`], exit: 1 });
    await t.converge();
    expect(t.store.release?.outcome).toBe("failed");
    expect(t.store.release?.message.includes(`last output: connecting with ${REDACTED}`)).toBe(true);
    expect(stored(t, hooks).includes(SECRET)).toBe(false);
  });

  it("the registry password is redacted from a pull's failure", async () => {
    const { t, hooks } = secretService({ login: true });
    t.engine.failNextPull(`denied for ${PASSWORD}`);
    await t.converge();
    expect(t.store.release?.message.includes(`denied for ${REDACTED}`)).toBe(true);
    expect(stored(t, hooks).includes(PASSWORD)).toBe(false);
  });

  it("an error thrown out of the pass (logged by the runner) holds no secret", async () => {
    const { t } = secretService();
    t.engine.images.set(IMAGE_REF, IMAGE_ID);
    t.engine.failNextStart(`bad env TOKEN=${SECRET}`);
    const err = await t.converge().then(() => null, (e: unknown) => e as Error);
    expect(err?.message === `bad env TOKEN=${REDACTED}`).toBe(true);
    expect(err?.stack?.includes(SECRET)).toBe(false);
  });
});
