import { describe, expect, it } from "vitest";
import type { SwarmServiceSpec } from "./port";
import { pinned } from "./engine";
import { overlayNetworkBody, serviceInfo, serviceSpecBody, taskInfo } from "./spec";

// Every field set, so a new one cannot be forgotten in the body.
const full: SwarmServiceSpec = {
  name: "lrsw-web-1",
  image: "10.231.0.1:56110/lrsw/web:v1",
  replicas: 2,
  labels: { "levelrail.managed": "true", "levelrail.instance": "lrsw" },
  containerLabels: { "levelrail.role": "service" },
  env: { PORT: "8080", EMPTY: "" },
  entrypoint: ["/bin/sh", "-c", "exec \"$@\"", "x"],
  command: ["/bin/busybox", "httpd", "-f"],
  networks: [{ target: "lrsw-app-a", aliases: ["web"] }],
  constraints: ["node.labels.lrsw.zone==a"],
  spreadOver: ["node.labels.lrsw.zone"],
  maxReplicasPerNode: 1,
  secrets: [{ secretId: "s1", secretName: "lrsw-secret-x", file: "db_password" }],
  updateOrder: "start-first",
  stopGraceSeconds: 3,
  dns: { nameservers: ["10.232.0.5", "192.0.2.53"], search: ["shop.lrsw.internal"], options: ["ndots:1"] },
  limits: { memoryBytes: 256 * 1024 * 1024, nanoCpus: 500_000_000, pids: 512 },
  capabilities: { add: ["CHOWN", "NET_BIND_SERVICE"], drop: ["ALL"] },
  endpointMode: "dnsrr",
  registryAuth: { username: "u", password: "p", serveraddress: "10.231.0.1:56110" },
};

describe("serviceSpecBody", () => {
  it("carries every field of the spec into the engine's ServiceSpec; the login never goes in the body", () => {
    const body = serviceSpecBody(full);
    expect(body).toEqual({
      Name: "lrsw-web-1",
      Labels: full.labels,
      TaskTemplate: {
        ContainerSpec: {
          Image: full.image,
          Labels: full.containerLabels,
          Env: ["PORT=8080", "EMPTY="],
          Command: ["/bin/sh", "-c", "exec \"$@\"", "x"],
          Args: ["/bin/busybox", "httpd", "-f"],
          DNSConfig: { Nameservers: ["10.232.0.5", "192.0.2.53"], Search: ["shop.lrsw.internal"], Options: ["ndots:1"] },
          StopGracePeriod: 3_000_000_000,
          CapabilityDrop: ["ALL"],
          CapabilityAdd: ["CHOWN", "NET_BIND_SERVICE"],
          Secrets: [{ SecretID: "s1", SecretName: "lrsw-secret-x", File: { Name: "db_password", UID: "0", GID: "0", Mode: 0o400 } }],
        },
        Placement: {
          Constraints: ["node.labels.lrsw.zone==a"],
          Preferences: [{ Spread: { SpreadDescriptor: "node.labels.lrsw.zone" } }],
          MaxReplicas: 1,
        },
        Networks: [{ Target: "lrsw-app-a", Aliases: ["web"] }],
        Resources: { Limits: { MemoryBytes: 268_435_456, NanoCPUs: 500_000_000, Pids: 512 } },
        RestartPolicy: { Condition: "any", Delay: 1_000_000_000, MaxAttempts: 0 },
        ForceUpdate: 0,
      },
      Mode: { Replicated: { Replicas: 2 } },
      UpdateConfig: { Parallelism: 1, Order: "start-first", FailureAction: "pause", Monitor: 5_000_000_000 },
      EndpointSpec: { Mode: "dnsrr" },
    });
    expect(JSON.stringify(body)).not.toContain('"p"');
  });

  it("leaves the image's command alone, and sets no per-node limit, when none is given", () => {
    const body = serviceSpecBody({ ...full, entrypoint: undefined, command: undefined, maxReplicasPerNode: 0, spreadOver: undefined, stopGraceSeconds: undefined, limits: undefined, capabilities: undefined }) as { TaskTemplate: { ContainerSpec: object; Placement: object } };
    expect(body.TaskTemplate).not.toHaveProperty("Resources");
    expect(body.TaskTemplate.ContainerSpec).not.toHaveProperty("CapabilityAdd");
    expect(body.TaskTemplate.ContainerSpec).not.toHaveProperty("Args");
    expect(body.TaskTemplate.ContainerSpec).not.toHaveProperty("Command");
    expect(body.TaskTemplate.ContainerSpec).not.toHaveProperty("StopGracePeriod");
    expect(body.TaskTemplate.Placement).toEqual({ Constraints: ["node.labels.lrsw.zone==a"], Preferences: [] });
  });

  it("a job: one task run once, never restarted, with no rollout settings", () => {
    const body = serviceSpecBody({ ...full, mode: "job" }) as { Mode: object; TaskTemplate: { RestartPolicy: object } };
    expect(body.Mode).toEqual({ ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } });
    expect(body.TaskTemplate.RestartPolicy).toEqual({ Condition: "none", MaxAttempts: 0 });
    expect(body).not.toHaveProperty("UpdateConfig");
  });
});

describe("a task's limits", () => {
  it("a limit left unset (memory, CPUs) is not sent; the pids limit always is", () => {
    const body = serviceSpecBody({ ...full, limits: { memoryBytes: null, nanoCpus: null, pids: 4096 } }) as { TaskTemplate: { Resources: object } };
    expect(body.TaskTemplate.Resources).toEqual({ Limits: { Pids: 4096 } });
  });
});

describe("overlayNetworkBody", () => {
  it.each([
    [
      "encrypted, a subnet from the pool, the nodes' MTU",
      { encrypted: true, subnet: "10.232.5.0/26", gateway: "10.232.5.1", mtu: 1450 },
      { Options: { encrypted: "", "com.docker.network.driver.mtu": "1450" }, IPAM: { Driver: "default", Config: [{ Subnet: "10.232.5.0/26", Gateway: "10.232.5.1" }] } },
    ],
    ["plain, the swarm's pool picks the subnet", { encrypted: false, subnet: null, gateway: null, mtu: null }, { Options: {} }],
    ["a subnet without a gateway", { encrypted: false, subnet: "10.232.6.0/26", gateway: null, mtu: null }, { IPAM: { Driver: "default", Config: [{ Subnet: "10.232.6.0/26" }] } }],
  ] as const)("%s", (_, opts, want) => {
    const body = overlayNetworkBody({ name: "lrsw-app-a", labels: { "levelrail.app": "a" }, ...opts });
    expect(body).toMatchObject({ Name: "lrsw-app-a", Driver: "overlay", Attachable: true, CheckDuplicate: true, Labels: { "levelrail.app": "a" }, ...want });
    if (!opts.subnet) expect(body).not.toHaveProperty("IPAM");
  });
});

describe("taskInfo", () => {
  const base = {
    ID: "t1",
    ServiceID: "s1",
    NodeID: "n1",
    Slot: 1,
    DesiredState: "running",
    UpdatedAt: "2026-12-02T13:00:00.5Z",
    Spec: { ContainerSpec: { Image: "10.231.0.1:56110/lrsw/web:v1@sha256:abc" } },
    Status: { State: "running", Message: "started", ContainerStatus: { ContainerID: "c1" } },
    NetworksAttachments: [{ Network: { ID: "net1" }, Addresses: ["10.232.5.7/26"] }],
  };
  it.each([
    ["running and meant to: ready", base, { ready: true, state: "running", image: "10.231.0.1:56110/lrsw/web:v1@sha256:abc", nodeId: "n1", containerId: "c1", addresses: { net1: "10.232.5.7" }, updatedAt: Date.parse("2026-12-02T13:00:00.5Z") }],
    ["starting (its health check not passed yet)", { ...base, Status: { State: "starting" } }, { ready: false, state: "starting", containerId: null }],
    ["running but being shut down", { ...base, DesiredState: "shutdown" }, { ready: false }],
    ["failed, with the engine's error and its exit code", { ...base, Status: { State: "failed", Err: "task: non-zero exit (1)", ContainerStatus: { ContainerID: "c1", ExitCode: 1 } } }, { ready: false, error: "task: non-zero exit (1)", exitCode: 1 }],
    ["running: no exit code yet, whatever the engine says", { ...base, Status: { State: "running", ContainerStatus: { ContainerID: "c1", ExitCode: 0 } } }, { exitCode: null }],
    ["a job's task complete: exit code 0", { ...base, DesiredState: "complete", Status: { State: "complete", ContainerStatus: { ContainerID: "c1", ExitCode: 0 } } }, { ready: false, exitCode: 0 }],
    ["not placed yet", { ID: "t2", ServiceID: "s1", NodeID: "", Status: { State: "pending", Message: "no suitable node" } }, { nodeId: null, slot: null, image: "", state: "pending", message: "no suitable node", updatedAt: 0, addresses: {} }],
  ] as const)("%s", (_, task, want) => {
    expect(taskInfo(task)).toMatchObject(want);
  });
});

describe("serviceInfo", () => {
  it("reads references to secrets, never a value, and the rollout state", () => {
    expect(
      serviceInfo({
        ID: "s1",
        Version: { Index: 42 },
        CreatedAt: "2026-12-02T10:00:00.5Z",
        Spec: {
          Name: "lrsw-web-1",
          Labels: { a: "b" },
          TaskTemplate: {
            ContainerSpec: { Image: "img", Secrets: [{ SecretID: "x", SecretName: "lrsw-secret-x", File: { Name: "pw" } }] },
            Placement: { Constraints: ["node.role==worker"] },
            Networks: [{ Target: "net1" }],
          },
          Mode: { Replicated: { Replicas: 3 } },
        },
        UpdateStatus: { State: "completed" },
      }),
    ).toEqual({
      id: "s1", name: "lrsw-web-1", version: 42, labels: { a: "b" }, image: "img", replicas: 3, constraints: ["node.role==worker"],
      secrets: [{ secretId: "x", secretName: "lrsw-secret-x", file: "pw" }], networks: ["net1"], updateState: "completed",
      createdAt: Date.UTC(2026, 11, 2, 10, 0, 0, 500),
    });
    expect(serviceInfo({ ID: "s2" })).toMatchObject({ name: "", version: 0, replicas: 0, secrets: [], updateState: null, createdAt: 0 });
  });
});

describe("pinned", () => {
  const digest = `sha256:${"ab".repeat(32)}`;
  it("keeps the tag and adds the digest, as `docker service create` pins it", () => {
    expect(pinned("10.231.0.1:56110/lrsw/web:v1", digest)).toBe(`10.231.0.1:56110/lrsw/web:v1@${digest}`);
  });
  it("leaves a reference that names a digest as it is", () => {
    const ref = `web@sha256:${"cd".repeat(32)}`;
    expect(pinned(ref, digest)).toBe(ref);
  });
});
