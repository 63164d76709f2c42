import type Docker from "dockerode";
import type { ContainerStats } from "./stats";
import type { ExecStreamOptions, OutputStream } from "./streams";
import type { VolumeInfo } from "./volumes";

// The engine's calls as narrow ports: each consumer names the pieces it uses.

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
  /** Its driver (`bridge`, `overlay`, …), when the engine said. */
  driver?: string;
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

/** The engine answers, and tells of container events. */
export interface EnginePort {
  ping(): Promise<void>;
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
}

/** Reading containers. */
export interface ContainerReads {
  /** Every container matching the label filters, each inspected (one call per container, and the list). */
  listContainers(labelFilters: string[]): Promise<ManagedContainer[]>;
  /** Every container matching the label filters as the list shows it: one engine call, nothing inspected. */
  listContainersBrief(labelFilters: string[]): Promise<ContainerSummary[]>;
  inspectContainer(nameOrId: string): Promise<ManagedContainer | null>;
}

/** Changing containers. */
export interface ContainerWrites {
  /** Creates the container; resolves to null when the name is already taken. */
  createContainer(opts: Docker.ContainerCreateOptions): Promise<string | null>;
  startContainer(id: string): Promise<void>;
  stopContainer(id: string, timeoutSeconds: number): Promise<void>;
  /** Force-removes; a container that is already gone is not an error. */
  removeContainer(id: string): Promise<void>;
  /** Changes the restart policy of a created container. */
  setRestartPolicy(id: string, policy: "no" | "unless-stopped"): Promise<void>;
}

/** What the engine knows of where an image came from. */
export interface ImageOrigin {
  repoDigests: string[];
  labels: Record<string, string>;
}

/** Images and registries. */
export interface ImagePort {
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
   * Where the image came from, in one inspect: its RepoDigests (empty: built or loaded on this host)
   * and its labels (its config's, inherited ones included); null when the engine has no such image.
   */
  imageOrigin(idOrRef: string): Promise<ImageOrigin | null>;
  /** Gives the image (by id or reference) the name `ref` (`repository:tag`) too; the name moves if another image had it. */
  tagImage(idOrRef: string, ref: string): Promise<void>;
  /**
   * Whether the registry lets `auth` (or no login) pull `ref`: the engine looks up its manifest
   * (`GET /distribution/{ref}/json`), nothing is downloaded. Any answer but yes (unauthorized,
   * denied, not found, the registry unreachable) resolves `{ok: false}` with the engine's reason;
   * only an engine that does not answer throws.
   */
  registryAccess(ref: string, auth: RegistryAuth | null): Promise<RegistryAccess>;
}

/** Networks. */
export interface NetworkPort {
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
}

/** Named volumes. */
export interface VolumePort {
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
}

/** Commands inside running containers. */
export interface ExecPort {
  /**
   * Runs argv inside a running container (no shell) and streams its combined output. Once `signal`
   * aborts, the output is dropped, the process is killed where the worker can see it (`killExec`)
   * and the call rejects with an `ExecStoppedError`.
   */
  exec(id: string, argv: string[], onChunk: (text: string) => void, opts?: { signal?: AbortSignal }): Promise<{ exitCode: number }>;
  /** Runs argv inside a running container (no shell): stdout as a byte stream, stdin from `opts.stdin` (see `OutputStream`). */
  execStream(id: string, argv: string[], opts: ExecStreamOptions): Promise<OutputStream>;
}

/** A container's output and its end. */
export interface LogPort {
  /** Follows a container's combined stdout/stderr from its start until it ends. */
  followLogs(id: string, onChunk: (text: string) => void): Promise<void>;
  /** Resolves with the exit code once the container has stopped. */
  waitExit(id: string): Promise<number>;
  containerLogs(id: string, tailLines: number): Promise<string>;
  /** The environment it was created with (`KEY` → value), to redact its own secret values from its output; {} when it is gone. */
  containerEnv(id: string): Promise<Record<string, string>>;
}

/** Resource counters. */
export interface StatsPort {
  /** One reading of a container's CPU, memory and network counters; null when it is gone or not running. */
  containerStats(id: string): Promise<ContainerStats | null>;
}

/**
 * Everything the product asks of a Docker engine, in the pieces above. Argument arrays only; no shell
 * anywhere. A caller names the pieces (or the calls, with `Pick`) it uses, never all of it.
 */
export interface Runtime extends EnginePort, ContainerReads, ContainerWrites, ImagePort, NetworkPort, VolumePort, ExecPort, LogPort, StatsPort {}
