import { describe, expect, it } from "vitest";
import { deployInput, needsSwarm, placementOf, releaseSpec, replicasOf, serviceCreate, servicePatch } from "./service";

const minimal = { name: "web", app: "shop", image: "registry.example.com/shop:1.4.2", port: 8080 };

const full = {
  name: "web",
  app: "shop",
  environmentId: "6f1c2b8e-1d2a-4c3b-9e8f-0a1b2c3d4e5f",
  image: "registry.example.com/shop:1.4.2",
  port: 8080,
  healthPath: "/healthz",
  readyBudgetSeconds: 90,
  strategy: "recreate",
  env: { LOG_LEVEL: "info", _UNDERSCORE: "", MIXED_case9: "a=b c" },
  databaseEnv: { DATABASE_URL: { from: "shop-db" } },
  storageTargetId: "0b7a2f49-6a3c-4d2e-8f10-2b3c4d5e6f70",
  registryCredentialId: "1c8b3f5a-7b4d-4e3f-9a21-3c4d5e6f7081",
  hooks: { preDeploy: ["npm", "run", "migrate"], postDeploy: ["sh", "-c", "echo ok"], timeoutSeconds: 120 },
  domains: ["shop.example.com", "www.shop.example.com"],
  resources: { memoryMb: 512, cpus: 1.5, pids: 256, capAdd: ["CHOWN", "SETUID", "SETGID"] },
  replicas: 3,
  placement: { zone: "eu-1a", "disk/type": "ssd" },
};

/** The first issue's path, joined like the service layer names a field. */
const firstPath = (input: unknown): string | undefined => {
  const r = serviceCreate.safeParse(input);
  if (r.success) return undefined;
  return r.error.issues[0]?.path.map(String).join(".");
};

const rejects = (input: unknown) => expect(serviceCreate.safeParse(input).success).toBe(false);

describe("serviceCreate", () => {
  it("accepts a full valid spec unchanged", () => {
    expect(serviceCreate.parse(full)).toEqual(full);
  });

  it("applies the defaults", () => {
    expect(serviceCreate.parse(minimal)).toEqual({
      ...minimal,
      healthPath: "/",
      readyBudgetSeconds: 60,
      strategy: "blue-green",
      env: {},
      databaseEnv: {},
      storageTargetId: null,
      registryCredentialId: null,
      hooks: { preDeploy: null, postDeploy: null, timeoutSeconds: 300 },
      domains: [],
      resources: { memoryMb: null, cpus: null, pids: 4096, capAdd: [] },
      replicas: 1,
      placement: {},
    });
  });

  it("defaults the hook timeout when hooks are given without one", () => {
    expect(serviceCreate.parse({ ...minimal, hooks: { preDeploy: ["migrate"] } }).hooks).toEqual({
      preDeploy: ["migrate"],
      postDeploy: null,
      timeoutSeconds: 300,
    });
  });

  it.each([
    ["uppercase", "Web"],
    ["leading digit", "1web"],
    ["leading dash", "-web"],
    ["64 characters", `a${"b".repeat(63)}`],
    ["empty", ""],
    ["underscore", "web_1"],
    ["dot", "web.1"],
  ])("rejects a service name with %s", (_why, name) => {
    expect(firstPath({ ...minimal, name })).toBe("name");
  });

  it("accepts a 63-character name", () => {
    expect(serviceCreate.safeParse({ ...minimal, name: `a${"b".repeat(62)}` }).success).toBe(true);
  });

  it("rejects a bad app name", () => {
    expect(firstPath({ ...minimal, app: "Shop" })).toBe("app");
  });

  it.each([
    ["an equals sign", "A=B"],
    ["a space", "BAD KEY"],
    ["a newline", "A\nB"],
    ["a NUL", "A\0B"],
    ["a leading digit", "1A"],
    ["a dash", "A-B"],
    ["nothing", ""],
  ])("rejects an env key with %s", (_why, key) => {
    expect(firstPath({ ...minimal, env: { [key]: "x" } })).toBe(`env.${key}`);
  });

  it("rejects a database attachment under a key that is not an env key", () => {
    expect(firstPath({ ...minimal, databaseEnv: { "DATABASE URL": { from: "db" } } })).toBe("databaseEnv.DATABASE URL");
    expect(firstPath({ ...minimal, databaseEnv: { DATABASE_URL: { from: "Db" } } })).toBe("databaseEnv.DATABASE_URL.from");
  });

  it("rejects an env value over 64 KiB, counted in bytes", () => {
    expect(serviceCreate.safeParse({ ...minimal, env: { A: "x".repeat(64 * 1024) } }).success).toBe(true);
    expect(firstPath({ ...minimal, env: { A: "x".repeat(64 * 1024 + 1) } })).toBe("env.A");
    // 'é' is two bytes in UTF-8: 32 Ki + 1 of them is over the limit in bytes though not in characters.
    expect(firstPath({ ...minimal, env: { A: "é".repeat(32 * 1024 + 1) } })).toBe("env.A");
  });

  it("rejects an env value with NUL", () => {
    expect(firstPath({ ...minimal, env: { A: "a\0b" } })).toBe("env.A");
  });

  it("rejects a non-string env value", () => {
    expect(firstPath({ ...minimal, env: { A: 1 } })).toBe("env.A");
  });

  it("rejects unknown fields (strict)", () => {
    const r = serviceCreate.safeParse({ ...minimal, scale: 3 });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]).toMatchObject({ code: "unrecognized_keys", keys: ["scale"] });
    rejects({ ...minimal, hooks: { preDeploy: null, shell: "sh" } });
    rejects({ ...minimal, databaseEnv: { DATABASE_URL: { from: "db", extra: 1 } } });
  });

  it.each([
    ["0", 0],
    ["70000", 70000],
    ["a string", "80"],
    ["a fraction", 80.5],
    ["negative", -1],
  ])("rejects port %s", (_why, port) => {
    expect(firstPath({ ...minimal, port })).toBe("port");
  });

  it("requires a port; an image or a source is the verb's check (a git-sourced service has no image)", () => {
    const { port: _port, ...noPort } = minimal;
    expect(firstPath(noPort)).toBe("port");
    const { image: _image, ...noImage } = minimal;
    expect(firstPath(noImage)).toBeUndefined();
    expect(firstPath({ ...noImage, source: { git: { url: "ext::sh" } } })).toBe("source.git.url");
  });

  it.each([
    ["0", 0, "must be 1-100"],
    ["101", 101, "must be 1-100"],
    ["a fraction", 1.5, "must be a whole number of replicas"],
    ["a string", "3", "must be a whole number of replicas"],
    ["null", null, "must be a whole number of replicas"],
  ])("rejects replicas %s, naming the rule", (_why, replicas, message) => {
    const r = serviceCreate.safeParse({ ...minimal, replicas });
    expect(r.error?.issues[0]).toMatchObject({ path: ["replicas"], message });
  });

  it("accepts replicas 1 and 100", () => {
    expect(serviceCreate.parse({ ...minimal, replicas: 1 }).replicas).toBe(1);
    expect(serviceCreate.parse({ ...minimal, replicas: 100 }).replicas).toBe(100);
  });

  it.each([
    ["a product's own key", { "levelrail.mtu": "1500" }, "placement.levelrail.mtu"],
    ["a product's own key in capitals", { "LevelRail.db": "x" }, "placement.LevelRail.db"],
    ["a key with a space", { "a b": "x" }, "placement.a b"],
    ["a key ending in a dot", { "zone.": "x" }, "placement.zone."],
    ["an empty key", { "": "x" }, "placement."],
    ["a value with '='", { zone: "a==b" }, "placement.zone"],
    ["a value with '!'", { zone: "!a" }, "placement.zone"],
    ["a value with a leading space", { zone: " a" }, "placement.zone"],
    ["a value that is no string", { zone: 1 }, "placement.zone"],
    ["a list", ["zone=a"], "placement"],
    ["eleven labels", Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, "v"])), "placement"],
  ])("rejects a placement with %s, naming the field", (_why, placement, field) => {
    expect(firstPath({ ...minimal, placement })).toBe(field);
  });

  it("accepts a placement of ten labels, an empty value and the node label characters", () => {
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, "v"]));
    expect(serviceCreate.parse({ ...minimal, placement: ten }).placement).toEqual(ten);
    const odd = { "topology.example.com/zone": "eu west 1", a: "", "node_pool-2": "gpu" };
    expect(serviceCreate.parse({ ...minimal, placement: odd }).placement).toEqual(odd);
  });

  it("rejects a bad strategy", () => {
    expect(firstPath({ ...minimal, strategy: "rolling" })).toBe("strategy");
  });

  it.each([
    ["a space", "nginx latest"],
    ["a semicolon", "nginx;rm -rf /"],
    ["a leading dash", "-nginx"],
    ["a $(...)", "nginx$(id)"],
    ["nothing", ""],
    ["a newline", "nginx\n"],
    ["a bare sha256 id", "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"],
    ["a short sha256 id", "sha256:0123456789ab"],
    ["a bare 64-hex id", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"],
    ["a short id prefix", "0123456789ab"],
    ["a one-digit id prefix", "a"],
    ["an upper-case id prefix", "DEADBEEF"],
  ])("rejects an image reference with %s", (_why, image) => {
    expect(firstPath({ ...minimal, image })).toBe("image");
  });

  it.each(["nginx", "nginx:1.27", "deadbeef:1", "acme/deadbeef", "registry:5000/a/b:1", "ghcr.io/o/r@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"])(
    "accepts image reference %s",
    (image) => {
      expect(serviceCreate.safeParse({ ...minimal, image }).success).toBe(true);
    },
  );

  it("rejects a health path without a leading slash or with spaces", () => {
    expect(firstPath({ ...minimal, healthPath: "healthz" })).toBe("healthPath");
    expect(firstPath({ ...minimal, healthPath: "/health z" })).toBe("healthPath");
  });

  it("rejects hook argv with an empty or NUL argument and an out-of-range timeout", () => {
    expect(firstPath({ ...minimal, hooks: { preDeploy: [] } })).toBe("hooks.preDeploy");
    expect(firstPath({ ...minimal, hooks: { preDeploy: ["a", ""] } })).toBe("hooks.preDeploy.1");
    expect(firstPath({ ...minimal, hooks: { postDeploy: ["a\0"] } })).toBe("hooks.postDeploy.0");
    expect(firstPath({ ...minimal, hooks: { timeoutSeconds: 0 } })).toBe("hooks.timeoutSeconds");
  });

  it("lowercases domains and rejects bad ones", () => {
    expect(serviceCreate.parse({ ...minimal, domains: ["Shop.Example.COM"] }).domains).toEqual(["shop.example.com"]);
    expect(firstPath({ ...minimal, domains: ["ok.example.com", "bad domain"] })).toBe("domains.1");
  });

  it("refuses localhost, IP addresses and .internal names; *.localhost subdomains are fine", () => {
    for (const d of ["localhost", "LOCALHOST", "127.0.0.1", "10.1.2.3", "web.shop.levelrail.internal", "internal"]) {
      expect(firstPath({ ...minimal, domains: ["ok.example.com", d] }), d).toBe("domains.1");
    }
    expect(serviceCreate.parse({ ...minimal, domains: ["shop.localhost", "a1.example.com"] }).domains).toEqual(["shop.localhost", "a1.example.com"]);
  });
});

describe("servicePatch and deployInput", () => {
  it("a patch applies no defaults and is strict", () => {
    // Regression: databaseEnv used to default to {} in a patch, so any PATCH cleared the attachments.
    expect(servicePatch.parse({ port: 9090 })).toEqual({ port: 9090 });
    expect(servicePatch.parse({})).toEqual({});
    expect(servicePatch.safeParse({ name: "renamed" }).success).toBe(false);
    // Nor for the swarm's fields: a patch of the port leaves replicas and placement alone.
    expect(servicePatch.parse({ replicas: 2, placement: {} })).toEqual({ replicas: 2, placement: {} });
  });

  it("a patch names a bad replicas or placement", () => {
    expect(servicePatch.safeParse({ replicas: 0 }).error?.issues[0]?.path).toEqual(["replicas"]);
    expect(servicePatch.safeParse({ placement: { "levelrail.db": "x" } }).error?.issues[0]?.path).toEqual(["placement", "levelrail.db"]);
  });

  it("deployInput takes an optional image only", () => {
    expect(deployInput.parse({})).toEqual({});
    expect(deployInput.parse({ image: "nginx:2" })).toEqual({ image: "nginx:2" });
    expect(deployInput.safeParse({ image: "nginx 2" }).success).toBe(false);
    expect(deployInput.safeParse({ tag: "2" }).success).toBe(false);
  });

  it.each([
    ["a memory limit below 16 MiB", { memoryMb: 8 }, "resources.memoryMb"],
    ["a fractional memory limit", { memoryMb: 100.5 }, "resources.memoryMb"],
    ["no CPU at all", { cpus: 0 }, "resources.cpus"],
    ["a process limit below 16", { pids: 4 }, "resources.pids"],
    ["a capability beyond Docker's default set", { capAdd: ["SYS_ADMIN"] }, "resources.capAdd.0"],
    ["a capability listed twice", { capAdd: ["CHOWN", "CHOWN"] }, "resources.capAdd"],
    ["an unknown resource field", { swapMb: 10 }, "resources"],
  ])("refuses %s, naming the field", (_why, resources, field) => {
    const r = servicePatch.safeParse({ resources });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path.map(String).join(".")).toBe(field);
  });

  it("a release spec is the service's runtime fields", () => {
    expect(Object.keys(releaseSpec.shape).sort()).toEqual(["env", "healthPath", "hooks", "image", "placement", "port", "readyBudgetSeconds", "replicas", "resources", "strategy"]);
  });

  it("a release without replicas or placement (the defaults, or made before they existed) reads as one replica anywhere", () => {
    const old = releaseSpec.parse({ image: "nginx:1", port: 80, healthPath: "/", readyBudgetSeconds: 60, strategy: "blue-green", env: {}, hooks: { preDeploy: null, postDeploy: null, timeoutSeconds: 300 } });
    expect(old).not.toHaveProperty("replicas");
    expect(old).not.toHaveProperty("placement");
    expect(replicasOf(old)).toBe(1);
    expect(placementOf(old)).toEqual({});
    expect(needsSwarm(old)).toBeNull();
    expect(replicasOf({ ...old, replicas: 4 })).toBe(4);
    expect(placementOf({ ...old, placement: { zone: "a" } })).toEqual({ zone: "a" });
  });

  it("needsSwarm names what one engine cannot run", () => {
    expect(needsSwarm({ replicas: 1, placement: {} })).toBeNull();
    expect(needsSwarm({ replicas: 2 })).toBe("replicas");
    expect(needsSwarm({ placement: { zone: "a" } })).toBe("placement");
    expect(needsSwarm({ replicas: 2, placement: { zone: "a" } })).toBe("replicas");
  });
});
