import Docker from "dockerode";
import { Labels } from "@levelrail/spec/naming";
import { statusOf } from "./engine-errors";
import { parseDockerHost } from "./host";
import { imageCalls } from "./images";
import type { ContainerStats } from "./stats";
import { statsCalls } from "./stats-calls";
import { demuxLogs, demuxStream, type ExecStreamOptions, execStream, type OutputStream } from "./streams";
import { type VolumeInfo, volumeCalls } from "./volumes";

export { demuxLogs, type ExecStreamOptions, type OutputStream } from "./streams";
export type { VolumeInfo } from "./volumes";
export type { ContainerStats, CpuCounters } from "./stats";
export { cpuPercent } from "./stats";

export interface ManagedContainer {
  id: string;
  name: string;
  state: "created" | "running" | "paused" | "restarting" | "removing" | "exited" | "dead";
  labels: Record<string, string>;
  /** Milliseconds since epoch when the container last started (0 if never). */
  startedAt: number;
  exitCode: number | null;
  /** Milliseconds since epoch when the container was created. */
  createdAt: number;
  /** Milliseconds since epoch when the container last exited (0 if never). */
  finishedAt: number;
  /** Its restart policy's name (`no`, `unless-stopped`, …; "" when unset). */
  restartPolicy: string;
  /** How often the engine restarted it after it exited. */
  restartCount: number;
  /** IP address in each network it is attached to. */
  addresses: Record<string, string>;
}

/**
 * One container as the engine's list shows it, without inspecting it: enough to tell whether it
 * changed since it was last inspected, not enough to act on (no restart policy, times, exit code).
 */
export interface ContainerSummary {
  id: string;
  name: string;
  state: ManagedContainer["state"];
  /** The engine's human status (`Up 5 minutes (healthy)`, `Exited (1) 3 seconds ago`). */
  status: string;
  labels: Record<string, string>;
  /** Milliseconds since epoch when the container was created (second precision). */
  createdAt: number;
  /** IP address in each network it is attached to. */
  addresses: Record<string, string>;
}

/** A container event: what happened (`start`, `die`, `destroy`, …), to which container, and its labels (with its `name`). */
export interface ContainerEvent {
  action: string;
  id: string;
  labels: Record<string, string>;
}

export interface NetworkInfo {
  id: string;
  name: string;
  labels: Record<string, string>;
  subnets: string[];
  gateway: string | null;
  /** Ids of the containers attached. */
  containers: string[];
}

/** One image as the engine's list shows it. */
export interface ImageInfo {
  id: string;
  /** Its tags (`repo:tag`, as the engine spells them); empty for an untagged image. */
  repoTags: string[];
  /** Bytes on disk, its layers shared with other images included. */
  size: number;
}

/** What removing an image came to: removed, already gone, or refused because something uses or names it (a container, another tag). */
export type ImageRemoval = "removed" | "gone" | "conflict";

export interface RegistryAuth {
  username: string;
  password: string;
  serveraddress: string;
}

/** What a registry answered, through the engine, about a reference and a login. */
export type RegistryAccess = { ok: true } | { ok: false; status: number; reason: string };

export interface PullProgress {
  status: string;
  id?: string;
  current?: number;
  total?: number;
}

/** Everything the product asks of a Docker engine. Argument arrays only; no shell anywhere. */
export interface Runtime {
  ping(): Promise<void>;
  /** Every container matching the label filters, each inspected (one call per container, and the list). */
  listContainers(labelFilters: string[]): Promise<ManagedContainer[]>;
  /** Every container matching the label filters as the list shows it: one engine call, nothing inspected. */
  listContainersBrief(labelFilters: string[]): Promise<ContainerSummary[]>;
  inspectContainer(nameOrId: string): Promise<ManagedContainer | null>;
  /** The image's id if the engine has it, else null. */
  imageId(ref: string): Promise<string | null>;
  /**
   * Pulls `ref` until the engine reports it complete. When `signal` aborts, the pull's stream to the
   * engine is destroyed (so the engine cancels the pull) and the promise rejects with the signal's reason.
   */
  pullImage(ref: string, auth: RegistryAuth | null, onProgress: (p: PullProgress) => void, signal?: AbortSignal): Promise<void>;
  /** Every image on the engine (one call). */
  listImages(): Promise<ImageInfo[]>;
  /** The image ids of every container on the engine, in any state, whoever made it (one call). */
  containerImageIds(): Promise<Set<string>>;
  /**
   * By tag or id, never forced (`docker rmi` semantics, untagged parents pruned): a tag the image has
   * others besides is only untagged; an image a container uses, or an id with several tags, is a
   * conflict, left as it was.
   */
  removeImage(nameOrId: string): Promise<ImageRemoval>;
  /** The image's RepoDigests (empty: built or loaded on this host, never pulled); null when the engine has no such image. */
  imageRepoDigests(idOrRef: string): Promise<string[] | null>;
  /**
   * When the image was built: its `org.opencontainers.image.created` label when that parses, else the
   * engine's Created time; null when the engine has no such image (or neither time parses).
   */
  imageCreated(idOrRef: string): Promise<Date | null>;
  /**
   * Whether the registry lets `auth` (or no login) pull `ref`: the engine looks up its manifest
   * (`GET /distribution/{ref}/json`), nothing is downloaded. Any answer but yes (unauthorized,
   * denied, not found, the registry unreachable) resolves `{ok: false}` with the engine's reason;
   * only an engine that does not answer throws.
   */
  registryAccess(ref: string, auth: RegistryAuth | null): Promise<RegistryAccess>;
  /** By name or id. */
  inspectNetwork(nameOrId: string): Promise<NetworkInfo | null>;
  /** Every network matching the label filters (all networks for `[]`); one call, so `containers` is empty: inspect a network to see them. */
  listNetworks(labelFilters: string[]): Promise<NetworkInfo[]>;
  /** Creates a bridge network with a fixed subnet; resolves to false when the name is taken. */
  createNetwork(name: string, labels: Record<string, string>, subnet: string, gateway: string): Promise<boolean>;
  /** Joins a running container to the network, known there by `aliases`; one already joined is left as it is. */
  connectNetwork(network: string, containerId: string, aliases: string[]): Promise<void>;
  /** By the network's name or id. */
  disconnectNetwork(nameOrId: string, containerId: string): Promise<void>;
  /** By name or id; one that is already gone is not an error. */
  removeNetwork(nameOrId: string): Promise<void>;
  /** Creates the container; resolves to null when the name is already taken. */
  createContainer(opts: Docker.ContainerCreateOptions): Promise<string | null>;
  startContainer(id: string): Promise<void>;
  stopContainer(id: string, timeoutSeconds: number): Promise<void>;
  /** Force-removes; a container that is already gone is not an error. */
  removeContainer(id: string): Promise<void>;
  /** Follows a container's combined stdout/stderr from its start until it ends. */
  followLogs(id: string, onChunk: (text: string) => void): Promise<void>;
  /** Resolves with the exit code once the container has stopped. */
  waitExit(id: string): Promise<number>;
  /** Runs argv inside a running container (no shell) and streams its combined output. */
  exec(id: string, argv: string[], onChunk: (text: string) => void): Promise<{ exitCode: number }>;
  /** Runs argv inside a running container (no shell): stdout as a byte stream, stdin from `opts.stdin` (see `OutputStream`). */
  execStream(id: string, argv: string[], opts: ExecStreamOptions): Promise<OutputStream>;
  /**
   * Creates a named volume. A name the engine has already answers with that volume as it is (its
   * labels, whoever made it), so the caller can tell whether it is its own.
   */
  createVolume(name: string, labels: Record<string, string>): Promise<VolumeInfo>;
  inspectVolume(name: string): Promise<VolumeInfo | null>;
  /** Every volume matching the label filters (all for `[]`). */
  listVolumes(labelFilters: string[]): Promise<VolumeInfo[]>;
  /** One that is already gone is not an error; one a container uses is (the engine's 409). */
  removeVolume(name: string): Promise<void>;
  /**
   * Calls `onEvent` for each container event (start, die, destroy, …) matching the label filters,
   * until the returned function is called. The stream reconnects by itself after an engine restart;
   * `onConnected` is called each time the stream is (re)established, so a caller can tell the
   * engine came back and look again at what may have changed meanwhile.
   */
  watchContainers(
    labelFilters: string[],
    onEvent: (e: ContainerEvent) => void,
    onConnected?: () => void,
  ): () => void;
  /** Changes the restart policy of a created container. */
  setRestartPolicy(id: string, policy: "no" | "unless-stopped"): Promise<void>;
  containerLogs(id: string, tailLines: number): Promise<string>;
  /** One reading of a container's CPU, memory and network counters; null when it is gone or not running. */
  containerStats(id: string): Promise<ContainerStats | null>;
}

/** How long a request/response call to the engine may take before it fails (streams have no deadline). */
const REQUEST_TIMEOUT_MS = 60_000;

/** Build a Runtime on dockerode. `DOCKER_HOST` is read by the caller and passed in. */
export function dockerRuntime(opts: { dockerHost?: string | undefined } = {}): Runtime & { docker: Docker } {
  const base: Docker.DockerOptions = opts.dockerHost ? parseDockerHost(opts.dockerHost) : {};
  /** For streams (events, logs, pulls, exec output, waits) and stops, which may take as long as they take. */
  const docker = new Docker(base);
  /**
   * For request/response calls: with a deadline, so an engine that takes a call and never answers
   * fails the pass (the runner retries it) instead of hanging that service's key for good.
   */
  const api = new Docker({ ...base, timeout: REQUEST_TIMEOUT_MS });

  const toManaged = (c: Docker.ContainerInspectInfo): ManagedContainer => ({
    id: c.Id,
    name: c.Name.replace(/^\//, ""),
    state: c.State.Status as ManagedContainer["state"],
    labels: c.Config.Labels ?? {},
    startedAt: c.State.StartedAt && !c.State.StartedAt.startsWith("0001") ? Date.parse(c.State.StartedAt) : 0,
    exitCode: c.State.Status === "exited" || c.State.Status === "dead" || c.RestartCount > 0 ? c.State.ExitCode : null,
    createdAt: Date.parse(c.Created),
    finishedAt: c.State.FinishedAt && !c.State.FinishedAt.startsWith("0001") ? Date.parse(c.State.FinishedAt) : 0,
    restartCount: c.RestartCount,
    restartPolicy: c.HostConfig?.RestartPolicy?.Name ?? "",
    addresses: Object.fromEntries(
      Object.entries(c.NetworkSettings.Networks ?? {}).flatMap(([net, n]) => (n.IPAddress ? [[net, n.IPAddress]] : [])),
    ),
  });

  const inspectContainer = async (nameOrId: string): Promise<ManagedContainer | null> => {
    try {
      return toManaged(await api.getContainer(nameOrId).inspect());
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw err;
    }
  };

  return {
    docker,
    async ping() {
      await api.ping();
    },
    async listContainers(labelFilters) {
      const list = await api.listContainers({ all: true, filters: { label: labelFilters } });
      const all = await Promise.all(list.map((c) => inspectContainer(c.Id)));
      return all.filter((c): c is ManagedContainer => c !== null);
    },
    async listContainersBrief(labelFilters) {
      const list = await docker.listContainers({ all: true, filters: { label: labelFilters } });
      return list.map(toSummary);
    },
    inspectContainer,
    ...imageCalls(api, docker),
    ...volumeCalls(api),
    ...statsCalls(api),
    async inspectNetwork(name) {
      try {
        return toNetwork(await api.getNetwork(name).inspect());
      } catch (err) {
        if (statusOf(err) === 404) return null;
        throw err;
      }
    },
    async listNetworks(labelFilters) {
      const nets = await api.listNetworks(labelFilters.length ? { filters: { label: labelFilters } } : {});
      return nets.map((n) => ({ ...toNetwork(n), containers: [] }));
    },
    async createNetwork(name, labels, subnet, gateway) {
      try {
        await api.createNetwork({
          Name: name,
          Driver: "bridge",
          Labels: labels,
          CheckDuplicate: true,
          IPAM: { Driver: "default", Config: [{ Subnet: subnet, Gateway: gateway }] },
        });
        return true;
      } catch (err) {
        if (statusOf(err) === 409) return false;
        throw err;
      }
    },
    async disconnectNetwork(name, containerId) {
      try {
        await api.getNetwork(name).disconnect({ Container: containerId, Force: true });
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
      }
    },
    async removeNetwork(name) {
      try {
        await api.getNetwork(name).remove();
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
      }
    },
    async createContainer(opts) {
      try {
        const c = await api.createContainer(opts);
        return c.id;
      } catch (err) {
        if (statusOf(err) === 409) return null;
        throw err;
      }
    },
    async startContainer(id) {
      try {
        await api.getContainer(id).start();
      } catch (err) {
        if (statusOf(err) !== 304) throw err; // 304: already started
      }
    },
    async stopContainer(id, timeoutSeconds) {
      try {
        await docker.getContainer(id).stop({ t: timeoutSeconds });
      } catch (err) {
        const s = statusOf(err);
        if (s !== 304 && s !== 404) throw err;
      }
    },
    async removeContainer(id) {
      try {
        await api.getContainer(id).remove({ force: true, v: true });
      } catch (err) {
        const s = statusOf(err);
        if (s !== 404 && s !== 409) throw err; // 409: removal already in progress
      }
    },
    async followLogs(id, onChunk) {
      const stream = (await docker.getContainer(id).logs({ stdout: true, stderr: true, follow: true })) as unknown as NodeJS.ReadableStream;
      await demuxStream(stream, onChunk);
    },
    async waitExit(id) {
      const r = (await docker.getContainer(id).wait()) as { StatusCode: number };
      return r.StatusCode;
    },
    async exec(id, argv, onChunk) {
      const ex = await docker.getContainer(id).exec({ Cmd: argv, AttachStdout: true, AttachStderr: true, Tty: false });
      const stream = await ex.start({ hijack: true, stdin: false });
      await demuxStream(stream, onChunk);
      const info = await ex.inspect();
      return { exitCode: info.ExitCode ?? -1 };
    },
    execStream: (id, argv, opts) => execStream(docker, id, argv, opts),
    watchContainers(labelFilters, onEvent, onConnected) {
      let stopped = false;
      let current: NodeJS.ReadableStream | null = null;
      const connect = async () => {
        if (stopped) return;
        try {
          const stream = (await docker.getEvents({ filters: { type: ["container"], label: labelFilters } })) as NodeJS.ReadableStream;
          current = stream;
          onConnected?.();
          let buf = "";
          stream.on("data", (chunk: Buffer) => {
            buf += chunk.toString("utf8");
            let nl: number;
            while ((nl = buf.indexOf("\n")) >= 0) {
              const line = buf.slice(0, nl).trim();
              buf = buf.slice(nl + 1);
              if (!line) continue;
              try {
                const e = JSON.parse(line) as { Action?: string; Actor?: { ID?: string; Attributes?: Record<string, string> } };
                onEvent({ action: e.Action ?? "", id: e.Actor?.ID ?? "", labels: e.Actor?.Attributes ?? {} });
              } catch {
                // a partial or foreign line: skip it
              }
            }
          });
          const again = () => {
            if (current === stream && !stopped) setTimeout(() => void connect(), 1000).unref();
          };
          stream.on("end", again);
          stream.on("error", again);
        } catch {
          setTimeout(() => void connect(), 1000).unref();
        }
      };
      void connect();
      return () => {
        stopped = true;
        (current as unknown as { destroy?: () => void } | null)?.destroy?.();
      };
    },
    async setRestartPolicy(id, policy) {
      await api.getContainer(id).update({ RestartPolicy: { Name: policy } });
    },
    async containerLogs(id, tailLines) {
      const buf = (await api.getContainer(id).logs({ stdout: true, stderr: true, tail: tailLines, follow: false })) as unknown as Buffer;
      return demuxLogs(buf);
    },
  };
}

function toSummary(c: Docker.ContainerInfo): ContainerSummary {
  return {
    id: c.Id,
    name: (c.Names[0] ?? "").replace(/^\//, ""),
    state: c.State as ManagedContainer["state"],
    status: c.Status,
    labels: c.Labels ?? {},
    createdAt: c.Created * 1000,
    addresses: Object.fromEntries(
      Object.entries(c.NetworkSettings?.Networks ?? {}).flatMap(([net, n]) => (n.IPAddress ? [[net, n.IPAddress]] : [])),
    ),
  };
}

function toNetwork(n: Docker.NetworkInspectInfo): NetworkInfo {
  const config = n.IPAM?.Config ?? [];
  return {
    id: n.Id,
    name: n.Name,
    labels: n.Labels ?? {},
    subnets: config.map((c) => c.Subnet).filter((x): x is string => !!x),
    gateway: config.find((c) => c.Gateway)?.Gateway ?? null,
    containers: Object.keys(n.Containers ?? {}),
  };
}

export const MANAGED_FILTER = `${Labels.managed}=true`;
export type { Docker };
