import { describe, expect, it } from "vitest";
import { containerName } from "@levelrail/spec/naming";
import { type ReleaseSpec, releaseSpec } from "@levelrail/spec/service";
import { type ContainerPlan, containerOptions, probeUrl } from "./desired";

/**
 * Every ReleaseSpec field, set to something other than its default. `satisfies
 * Required<ReleaseSpec>` makes a new field a compile error here, and the key
 * check below makes it a test failure, so nobody adds a field without deciding
 * what it does to the container.
 */
const spec = {
  image: "registry.example.com/shop:1.4.2",
  port: 8080,
  healthPath: "/healthz",
  readyBudgetSeconds: 90,
  strategy: "recreate",
  env: { LOG_LEVEL: "info", FROM_SPEC: "spec" },
  hooks: { preDeploy: ["npm", "run", "migrate"], postDeploy: ["sh", "-c", "echo done"], timeoutSeconds: 120 },
  resources: { memoryMb: 256, cpus: 0.5, pids: 512, capAdd: ["NET_BIND_SERVICE"] },
  // A swarm's (issue 26): one engine runs a release as this one container whatever they say (the
  // service verbs refuse more than the defaults there); the swarm runtime reads them.
  replicas: 3,
  placement: { zone: "eu-1a" },
} satisfies Required<ReleaseSpec>;

const plan = {
  shortName: "lrtest",
  serviceId: "3c9d7e21-5b4a-4f6e-8d2c-1a2b3c4d5e6f",
  service: "web",
  appId: "6f1c2b8e-1d2a-4c3b-9e8f-0a1b2c3d4e5f",
  appName: "shop",
  environmentId: "2d4e6f80-1a3b-4c5d-8e9f-a0b1c2d3e4f5",
  releaseId: "0b7a2f49-6a3c-4d2e-8f10-2b3c4d5e6f70",
  imageId: "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
  restartNonce: "a1b2c3d4e5f6",
  dns: ["10.201.0.1"],
  spec,
  // The resolved environment: every tier merged, with values Docker must pass through untouched.
  env: { LOG_LEVEL: "debug", FROM_SPEC: "spec", DATABASE_URL: "postgres://u:p@db:5432/x?a=b", EMPTY: "", SPACES: "a b  c", MULTI: "line1\nline2" },
  // Its secrets' keys (a database attachment's URL, a secret): named in a label, never a value.
  secretKeys: ["MULTI", "DATABASE_URL"],
} satisfies Required<ContainerPlan>;

describe("containerOptions", () => {
  it("covers every ReleaseSpec and ContainerPlan field", () => {
    expect(Object.keys(spec).sort()).toEqual(Object.keys(releaseSpec.shape).sort());
    expect(Object.keys(spec)).toHaveLength(10);
    expect(Object.keys(plan)).toHaveLength(13);
    expect(releaseSpec.parse(spec)).toEqual(spec);
  });

  it("builds the exact container", () => {
    const network = `lrtest-app-${plan.appId}`;
    expect(containerOptions(plan)).toStrictEqual({
      name: containerName("lrtest", "web", { serviceId: plan.serviceId, imageId: plan.imageId, restartNonce: "a1b2c3d4e5f6" }),
      Image: plan.imageId,
      Env: [
        "LOG_LEVEL=debug",
        "FROM_SPEC=spec",
        "DATABASE_URL=postgres://u:p@db:5432/x?a=b",
        "EMPTY=",
        "SPACES=a b  c",
        "MULTI=line1\nline2",
      ],
      Labels: {
        "levelrail.managed": "true",
        "levelrail.instance": "lrtest",
        "levelrail.service": plan.serviceId,
        "levelrail.app": plan.appId,
        "levelrail.environment": plan.environmentId,
        "levelrail.release": plan.releaseId,
        "levelrail.role": "service",
        "levelrail.image": "registry.example.com/shop:1.4.2",
        "levelrail.secret-keys": "DATABASE_URL,MULTI",
      },
      ExposedPorts: { "8080/tcp": {} },
      HostConfig: {
        NetworkMode: network,
        Dns: ["10.201.0.1"],
        DnsSearch: ["shop.lrtest.internal"],
        DnsOptions: ["ndots:1"],
        RestartPolicy: { Name: "no" },
        LogConfig: { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } },
        Memory: 256 * 1024 * 1024,
        MemorySwap: 256 * 1024 * 1024,
        NanoCpus: 500_000_000,
        PidsLimit: 512,
        SecurityOpt: ["no-new-privileges:true"],
        CapDrop: ["ALL"],
        CapAdd: ["CHOWN", "NET_BIND_SERVICE", "SETGID", "SETUID"],
      },
      // No `<service>` alias: the mesh DNS (through DnsSearch) answers a bare name with the active container only.
      NetworkingConfig: { EndpointsConfig: { [network]: {} } },
    });
  });

  it("names the container <short>-<service>-<hash of service id, image id and nonce>", () => {
    expect(containerOptions(plan).name).toMatch(/^lrtest-web-[0-9a-f]{12}$/);
    const other = (over: Partial<ContainerPlan>) => containerOptions({ ...plan, ...over }).name;
    expect(other({ restartNonce: "" })).not.toBe(containerOptions(plan).name);
    expect(other({ imageId: "sha256:ffff" })).not.toBe(containerOptions(plan).name);
    // The same service name and app name in another environment: another service, another name.
    expect(other({ serviceId: "5e6f7a8b-0000-4000-8000-000000000000", appId: "another-app", environmentId: "another-env" })).not.toBe(containerOptions(plan).name);
    // What does not change the container's identity does not change its name.
    expect(other({ releaseId: "another-release", env: {}, secretKeys: [] })).toBe(containerOptions(plan).name);
    expect(other({ environmentId: "another-env", appId: "another-app" })).toBe(containerOptions(plan).name);
  });

  it("a release made before limits existed gets the defaults: no memory or CPU limit, 4096 processes, the service role's capabilities", () => {
    const { resources: _r, ...older } = spec;
    const host = containerOptions({ ...plan, spec: older }).HostConfig!;
    expect(host).not.toHaveProperty("Memory");
    expect(host).not.toHaveProperty("NanoCpus");
    expect(host).toMatchObject({ PidsLimit: 4096, CapDrop: ["ALL"], CapAdd: ["CHOWN", "SETGID", "SETUID"], SecurityOpt: ["no-new-privileges:true"] });
  });

  it("one engine's container is the same with or without replicas and placement (a swarm's fields)", () => {
    const { replicas: _n, placement: _p, ...alone } = spec;
    expect(containerOptions({ ...plan, spec: alone })).toStrictEqual(containerOptions(plan));
  });

  it("takes the environment from the resolved env, not the spec's own", () => {
    const opts = containerOptions({ ...plan, env: { ONLY: "resolved" } });
    expect(opts.Env).toEqual(["ONLY=resolved"]);
  });

  it("is pure: the same plan gives equal options and the plan is not changed", () => {
    const before = structuredClone(plan);
    expect(containerOptions(plan)).toStrictEqual(containerOptions(plan));
    expect(plan).toStrictEqual(before);
  });
});

describe("probeUrl", () => {
  it("asks the health path on the service port", () => {
    expect(probeUrl("172.18.0.5", spec)).toBe("http://172.18.0.5:8080/healthz");
    expect(probeUrl("10.0.0.2", { port: 3000, healthPath: "/" })).toBe("http://10.0.0.2:3000/");
  });
});
