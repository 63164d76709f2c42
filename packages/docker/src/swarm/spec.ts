import type { OverlayNetworkSpec, SwarmServiceInfo, SwarmServiceSpec, SwarmTask } from "./port";

// Pure translations between the port's shapes and the Engine API's JSON (services, tasks,
// overlay networks), so what goes to the engine is tested without one.

/** The network option that sets an overlay's MTU. */
export const MTU_OPTION = "com.docker.network.driver.mtu";

/** The Engine API's ServiceSpec body for `POST /services/create` and `/services/{id}/update`. */
export function serviceSpecBody(spec: SwarmServiceSpec): Record<string, unknown> {
  const env = Object.entries(spec.env).map(([k, v]) => `${k}=${v}`);
  const job = spec.mode === "job";
  return {
    Name: spec.name,
    Labels: { ...spec.labels },
    TaskTemplate: {
      ContainerSpec: {
        Image: spec.image,
        Labels: { ...spec.containerLabels },
        Env: env,
        ...(spec.entrypoint ? { Command: [...spec.entrypoint] } : {}),
        ...(spec.command ? { Args: [...spec.command] } : {}),
        ...(spec.dns ? { DNSConfig: { Nameservers: [...spec.dns.nameservers], Search: [...spec.dns.search], Options: [...spec.dns.options] } } : {}),
        ...(spec.stopGraceSeconds !== undefined ? { StopGracePeriod: spec.stopGraceSeconds * 1e9 } : {}),
        ...(spec.mounts ? { Mounts: spec.mounts.map((m) => ({ Type: "volume", Source: m.source, Target: m.target, VolumeOptions: { Labels: { ...m.labels } } })) } : {}),
        ...(spec.capabilities ? { CapabilityDrop: [...spec.capabilities.drop], CapabilityAdd: [...spec.capabilities.add] } : {}),
        Secrets: spec.secrets.map((s) => ({
          SecretID: s.secretId,
          SecretName: s.secretName,
          File: { Name: s.file, UID: "0", GID: "0", Mode: s.mode ?? 0o400 },
        })),
      },
      Placement: {
        Constraints: [...spec.constraints],
        Preferences: (spec.spreadOver ?? []).map((d) => ({ Spread: { SpreadDescriptor: d } })),
        ...(spec.maxReplicasPerNode ? { MaxReplicas: spec.maxReplicasPerNode } : {}),
      },
      Networks: spec.networks.map((n) => ({ Target: n.target, Aliases: [...n.aliases] })),
      ...(spec.limits
        ? {
            Resources: {
              Limits: {
                ...(spec.limits.memoryBytes === null ? {} : { MemoryBytes: spec.limits.memoryBytes }),
                ...(spec.limits.nanoCpus === null ? {} : { NanoCPUs: spec.limits.nanoCpus }),
                Pids: spec.limits.pids,
              },
            },
          }
        : {}),
      // The engine restarts a task that exits; a replacement is a new task, on whichever node fits.
      // A job's one task runs once: its exit is its outcome.
      RestartPolicy: job ? { Condition: "none", MaxAttempts: 0 } : { Condition: "any", Delay: 1_000_000_000, MaxAttempts: 0 },
      ForceUpdate: 0,
    },
    ...(job
      ? { Mode: { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } } }
      : { Mode: { Replicated: { Replicas: spec.replicas } }, UpdateConfig: { Parallelism: 1, Order: spec.updateOrder, FailureAction: "pause", Monitor: 5_000_000_000 } }),
    EndpointSpec: { Mode: spec.endpointMode },
  };
}

/** The Engine API's NetworkCreate body for an attachable overlay. */
export function overlayNetworkBody(spec: OverlayNetworkSpec): Record<string, unknown> {
  const options: Record<string, string> = {};
  if (spec.encrypted) options.encrypted = "";
  if (spec.mtu !== null) options[MTU_OPTION] = String(spec.mtu);
  return {
    Name: spec.name,
    Driver: "overlay",
    Attachable: true,
    CheckDuplicate: true,
    Labels: { ...spec.labels },
    Options: options,
    ...(spec.subnet ? { IPAM: { Driver: "default", Config: [{ Subnet: spec.subnet, ...(spec.gateway ? { Gateway: spec.gateway } : {}) }] } } : {}),
  };
}

/** The fields of the Engine API's `Service` the port reads. */
export interface EngineService {
  ID: string;
  Version?: { Index?: number };
  CreatedAt?: string;
  Spec?: {
    Name?: string;
    Labels?: Record<string, string> | null;
    TaskTemplate?: {
      ContainerSpec?: { Image?: string; Secrets?: { SecretID?: string; SecretName?: string; File?: { Name?: string } }[] | null };
      Placement?: { Constraints?: string[] | null };
      Networks?: { Target?: string }[] | null;
    };
    Mode?: { Replicated?: { Replicas?: number } };
  };
  UpdateStatus?: { State?: string };
}

export function serviceInfo(s: EngineService): SwarmServiceInfo {
  const spec = s.Spec ?? {};
  const container = spec.TaskTemplate?.ContainerSpec ?? {};
  return {
    id: s.ID,
    name: spec.Name ?? "",
    version: s.Version?.Index ?? 0,
    labels: { ...(spec.Labels ?? {}) },
    image: container.Image ?? "",
    replicas: spec.Mode?.Replicated?.Replicas ?? 0,
    constraints: [...(spec.TaskTemplate?.Placement?.Constraints ?? [])],
    secrets: (container.Secrets ?? []).map((x) => ({ secretId: x.SecretID ?? "", secretName: x.SecretName ?? "", file: x.File?.Name ?? "" })),
    networks: (spec.TaskTemplate?.Networks ?? []).map((n) => n.Target ?? ""),
    updateState: s.UpdateStatus?.State ?? null,
    createdAt: s.CreatedAt ? Date.parse(s.CreatedAt) || 0 : 0,
  };
}

/** The fields of the Engine API's `Task` the port reads. */
export interface EngineTask {
  ID: string;
  ServiceID?: string;
  NodeID?: string;
  Slot?: number;
  DesiredState?: string;
  UpdatedAt?: string;
  Spec?: { ContainerSpec?: { Image?: string } };
  Status?: { State?: string; Message?: string; Err?: string; ContainerStatus?: { ContainerID?: string; ExitCode?: number } };
  NetworksAttachments?: { Network?: { ID?: string }; Addresses?: string[] }[] | null;
}

export function taskInfo(t: EngineTask): SwarmTask {
  const state = t.Status?.State ?? "unknown";
  const addresses: Record<string, string> = {};
  for (const a of t.NetworksAttachments ?? []) {
    const first = a.Addresses?.[0];
    if (a.Network?.ID && first) addresses[a.Network.ID] = first.replace(/\/\d+$/, "");
  }
  const updated = t.UpdatedAt ? Date.parse(t.UpdatedAt) : NaN;
  return {
    id: t.ID,
    serviceId: t.ServiceID ?? "",
    nodeId: t.NodeID || null,
    slot: t.Slot ?? null,
    image: t.Spec?.ContainerSpec?.Image ?? "",
    desiredState: t.DesiredState ?? "",
    state,
    ready: state === "running" && t.DesiredState === "running",
    message: t.Status?.Message ?? "",
    error: t.Status?.Err ?? "",
    containerId: t.Status?.ContainerStatus?.ContainerID || null,
    // The engine reports 0 for a task still running too: only an ended one's code means anything.
    exitCode: ["complete", "failed", "shutdown"].includes(state) && typeof t.Status?.ContainerStatus?.ExitCode === "number" ? t.Status.ContainerStatus.ExitCode : null,
    addresses,
    updatedAt: Number.isNaN(updated) ? 0 : updated,
  };
}
