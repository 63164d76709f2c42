import type { Readable } from "node:stream";
import type { ContainerCreateOptions } from "dockerode";
import type { ExecStreamOptions, ManagedContainer, OutputStream as EngineOutputStream, PullProgress, RegistryAccess, VolumeInfo } from "@levelrail/docker";

/**
 * The seams of the database controller. An engine (PostgreSQL today; MySQL or Redis later) is one
 * module implementing `DatabaseEngine`; where backups go is one `ObjectStore`. The controller
 * composes them and never knows which engine or which S3 server it drives.
 */

/** How the product logs into a managed database (the password is never logged or returned). */
export interface DatabaseCredentials {
  user: string;
  password: string;
  /** The database inside the server the apps use (PostgreSQL: `POSTGRES_DB`). */
  database: string;
}

/**
 * What a database holds, compared between a source and its restore: every table's exact row count
 * and the schema (one line per column, constraint and index, sorted), both read in one snapshot.
 */
export interface Inventory {
  /** `schema.table` → rows. */
  tables: Record<string, number>;
  /** Sorted description lines; equal lines mean equal schemas. */
  schema: string[];
}

/** A read snapshot held open while a dump is taken from it (PostgreSQL: `pg_export_snapshot()`). */
export interface HeldSnapshot {
  /** What the dump is told to read (PostgreSQL: the exported snapshot's id). */
  id: string;
  /** The inventory counted inside that very snapshot. */
  inventory: Inventory;
  /** Ends the snapshot's transaction and session; safe to call twice. */
  close(): Promise<void>;
}

/** A process's output streaming out of a container, and how it ended. */
export interface OutputStream {
  /** The process's stdout, as bytes (never buffered whole). */
  stdout: Readable;
  /** Exit code once the process ended, with the last few KiB of stderr (for the failure's reason). */
  done: Promise<{ exitCode: number; stderrTail: string }>;
}

export interface DatabaseEngine {
  readonly engine: "postgres";
  /** The image a version runs by default (`postgres:<version>`). */
  defaultImage(version: string): string;
  readonly port: number;
  /** Where the data volume is mounted in the container. */
  readonly dataPath: string;
  /** The container's env (`KEY=value`) making a fresh volume into a server with these credentials. */
  containerEnv(creds: DatabaseCredentials): string[];
  /** The URL an attached service gets, `host` resolving on its app network. */
  connectionUrl(creds: DatabaseCredentials, host: string): string;
  /**
   * Whether the server in the container accepts connections over TCP now (one quick check). Every
   * client below runs in the tenant's image, so none is trusted to end or to print little: each
   * takes a `signal` that stops it (its exec is dropped and its process killed where the worker can
   * see it, `@levelrail/docker`'s `killExec`), and has a deadline and an output cap of its own.
   */
  ready(containerId: string, creds: DatabaseCredentials, signal: AbortSignal, host?: string): Promise<boolean>;
  /**
   * The same check made by the worker itself, over TCP to the server's `address` on one of its
   * networks (nothing of the tenant's image runs): preferred whenever the server has an address.
   */
  handshake?(address: string, creds: DatabaseCredentials, signal: AbortSignal): Promise<boolean>;
  /** Opens a snapshot and counts its inventory; the caller must `close()` it. */
  holdSnapshot(containerId: string, creds: DatabaseCredentials, signal?: AbortSignal): Promise<HeldSnapshot>;
  /** Starts a dump of exactly that snapshot (PostgreSQL: `pg_dump -Fc --snapshot`), streamed. */
  dump(containerId: string, creds: DatabaseCredentials, snapshotId: string, signal?: AbortSignal): Promise<OutputStream>;
  /**
   * Restores a dump read from `input` into the (empty) server; rejects with the engine's reason.
   * `host`: the server is elsewhere, reached from the container (a pinned database's client).
   */
  restore(containerId: string, creds: DatabaseCredentials, input: Readable, signal?: AbortSignal, host?: string): Promise<void>;
  /**
   * Drops the credentials' database and makes it again, empty, owned by the same user: a restore's
   * server whose volume an earlier attempt (cut short by a worker's death) half filled. `host` as
   * `restore`'s.
   */
  emptyDatabase(containerId: string, creds: DatabaseCredentials, signal?: AbortSignal, host?: string): Promise<void>;
  /** The inventory of the server as it is now (after a restore); `host` as `restore`'s. */
  inventory(containerId: string, creds: DatabaseCredentials, signal?: AbortSignal, host?: string): Promise<Inventory>;
}

/** One S3-compatible backup target, opened with its (unsealed) credentials. */
export interface ObjectStore {
  /**
   * Streams `body` to `key` (multipart: memory stays bounded whatever the size) and returns its size
   * and sha256, computed while streaming. Rejects with the target's reason (never a credential); an
   * aborted or failed upload leaves no object behind. `signal` aborts it.
   */
  upload(key: string, body: Readable, signal?: AbortSignal): Promise<{ sizeBytes: number; sha256: string }>;
  /** The object's bytes, streamed; rejects with the target's reason (missing object, refused, down). */
  download(key: string): Promise<Readable>;
  /** Removes the object; a missing one is fine. */
  remove(key: string): Promise<void>;
  /** Whether the object exists (HEAD). */
  exists(key: string): Promise<boolean>;
}

/**
 * The engine calls the database code makes, as small ports it owns: any runtime that has these
 * methods will do (the dockerode one, the fake, a Swarm one), and a test fakes only these.
 */
export interface ContainerPort {
  inspectContainer(nameOrId: string): Promise<ManagedContainer | null>;
  /** Resolves to null when the name is already taken. */
  createContainer(opts: ContainerCreateOptions): Promise<string | null>;
  startContainer(id: string): Promise<void>;
  stopContainer(id: string, timeoutSeconds: number): Promise<void>;
  /** Force-removes; one already gone is fine. */
  removeContainer(idOrName: string): Promise<void>;
  containerLogs(id: string, tailLines: number): Promise<string>;
}

export interface ImagePort {
  imageId(ref: string): Promise<string | null>;
  pullImage(ref: string, auth: null, onProgress: (p: PullProgress) => void, signal?: AbortSignal): Promise<void>;
  /** The image's RepoDigests (where it was pulled from); null: the engine does not have it. */
  imageRepoDigests(idOrRef: string): Promise<string[] | null>;
  /** The image's RepoDigests and labels (a built image's name its organization), in one inspect; null: the engine does not have it. */
  imageOrigin(idOrRef: string): Promise<{ repoDigests: string[]; labels: Record<string, string> } | null>;
  /** Gives the image the name `ref` too (a pinned database's server on a swarm: a built image under its unresolvable name). */
  tagImage(idOrRef: string, ref: string): Promise<void>;
  /** Whether the reference's registry answers its manifest to this login (none: a database has no registry credential). */
  registryAccess(ref: string, auth: null): Promise<RegistryAccess>;
}

export interface VolumePort {
  /** A name the engine has answers with that volume as it is. */
  createVolume(name: string, labels: Record<string, string>): Promise<VolumeInfo>;
  inspectVolume(name: string): Promise<VolumeInfo | null>;
  listVolumes(labelFilters: string[]): Promise<VolumeInfo[]>;
  /** One already gone is fine; one a container uses is refused. */
  removeVolume(name: string): Promise<void>;
}

export interface NetworkPort {
  inspectNetwork(nameOrId: string): Promise<{ name: string } | null>;
  /** One already gone is fine; one with endpoints still on it is refused. */
  removeNetwork(name: string): Promise<void>;
  connectNetwork(network: string, containerId: string, aliases: string[]): Promise<void>;
  disconnectNetwork(nameOrId: string, containerId: string): Promise<void>;
}

/** Runs a client inside a database's container (no shell). */
export interface ExecPort {
  exec(id: string, argv: string[], onChunk: (text: string) => void, opts?: { signal?: AbortSignal }): Promise<{ exitCode: number }>;
  execStream(id: string, argv: string[], opts: ExecStreamOptions): Promise<EngineOutputStream>;
}

/** Every engine call the database controller makes. */
export type DatabaseRuntime = ContainerPort & ImagePort & VolumePort & NetworkPort;
