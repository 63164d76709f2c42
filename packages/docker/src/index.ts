import Docker from "dockerode";
import { Labels } from "@levelrail/spec/naming";
import type { Duplex } from "node:stream";
import { envRecord } from "./env";
import { statusOf } from "./engine-errors";
import { ExecStoppedError, abortReason, killExec } from "./exec-stop";
import { parseDockerHost } from "./host";
import { imageCalls } from "./images";
import { statsCalls } from "./stats-calls";
import { demuxLogs, demuxStream, execStream } from "./streams";
import { volumeCalls } from "./volumes";

export { UnusableContainerError, unusableContainerReason } from "./engine-errors";
export { demuxLogs, type ExecStreamOptions, type OutputStream } from "./streams";
export { ExecStoppedError } from "./exec-stop";
export type { VolumeInfo } from "./volumes";
export type { ContainerStats, CpuCounters } from "./stats";
export { cpuPercent } from "./stats";
export { statsCalls } from "./stats-calls";

export type {
  ContainerEvent,
  ContainerReads,
  ContainerSummary,
  ContainerWrites,
  EnginePort,
  ExecPort,
  ImageInfo,
  ImagePort,
  ImageRemoval,
  LogPort,
  ManagedContainer,
  NetworkInfo,
  NetworkPort,
  PullProgress,
  RegistryAccess,
  RegistryAuth,
  Runtime,
  StatsPort,
  VolumePort,
} from "./ports";
import type { ContainerSummary, ManagedContainer, NetworkInfo, Runtime } from "./ports";

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
    async exec(id, argv, onChunk, opts = {}) {
      const { signal } = opts;
      signal?.throwIfAborted();
      const ex = await docker.getContainer(id).exec({ Cmd: argv, AttachStdout: true, AttachStderr: true, Tty: false });
      const stream = (await ex.start({ hijack: true, stdin: false })) as Duplex;
      // Stopped (a deadline, too much output): the stream is dropped and the process killed where this process can.
      let stopped: Promise<ExecStoppedError> | null = null;
      const stop = () => {
        stopped ??= killExec(ex, id).then((killed) => new ExecStoppedError(argv[0] ?? "exec", abortReason(signal!), killed));
        stream.destroy();
      };
      if (signal?.aborted) stop();
      signal?.addEventListener("abort", stop, { once: true });
      try {
        await demuxStream(stream, onChunk);
      } catch (err) {
        if (stopped) throw await stopped;
        throw err;
      } finally {
        signal?.removeEventListener("abort", stop);
      }
      if (stopped) throw await stopped;
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
    async containerEnv(id) {
      try {
        return envRecord((await api.getContainer(id).inspect()).Config.Env ?? []);
      } catch (err) {
        if (statusOf(err) === 404) return {};
        throw err;
      }
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
    ...(n.Driver ? { driver: n.Driver } : {}),
  };
}

export const MANAGED_FILTER = `${Labels.managed}=true`;
export type { Docker };
