/**
 * The engine's container stats (`GET /containers/{id}/stats`), the part the product reads, and the
 * pure arithmetic `docker stats` does on them.
 */
export interface EngineStats {
  read?: string;
  cpu_stats?: EngineCpuStats;
  precpu_stats?: EngineCpuStats;
  memory_stats?: { usage?: number; limit?: number; stats?: Record<string, number> };
  networks?: Record<string, { rx_bytes?: number; tx_bytes?: number }>;
}

interface EngineCpuStats {
  cpu_usage?: { total_usage?: number; percpu_usage?: number[] };
  system_cpu_usage?: number;
  online_cpus?: number;
}

/** Cumulative CPU counters at one moment: the container's CPU time and the host's, in nanoseconds. */
export interface CpuCounters {
  containerNs: number;
  systemNs: number;
  onlineCpus: number;
}

/** One reading of a running container. */
export interface ContainerStats {
  cpu: CpuCounters;
  /** The engine's previous reading, about a second earlier, when it took one (not for a one-shot read). */
  precpu: CpuCounters | null;
  /** In use, without the page cache the kernel can drop (as `docker stats` counts it). */
  memoryBytes: number;
  /** The container's memory limit; null when it has none (the engine then reports the host's memory). */
  memoryLimitBytes: number | null;
  /** Received and sent over every network since the container started. */
  netRxBytes: number;
  netTxBytes: number;
}

function cpuCounters(c: EngineCpuStats | undefined): CpuCounters | null {
  const containerNs = c?.cpu_usage?.total_usage;
  const systemNs = c?.system_cpu_usage;
  if (containerNs === undefined || !systemNs) return null;
  // Older engines (cgroup v1) leave online_cpus out: the per-CPU list is as long as the host has CPUs.
  const onlineCpus = c?.online_cpus || c?.cpu_usage?.percpu_usage?.length || 1;
  return { containerNs, systemNs, onlineCpus };
}

/**
 * Percent of one CPU used between two readings (200 = two full CPUs): the container's CPU time over
 * the host's, times the host's CPUs (what `docker stats` computes). Null when the readings cannot
 * tell (no time passed, or a counter went back: the container restarted in between).
 */
export function cpuPercent(prev: CpuCounters | null, cur: CpuCounters): number | null {
  if (!prev) return null;
  const container = cur.containerNs - prev.containerNs;
  const system = cur.systemNs - prev.systemNs;
  if (system <= 0 || container < 0) return null;
  return (container / system) * cur.onlineCpus * 100;
}

/**
 * Memory in use as `docker stats` counts it: the usage without the inactive page cache
 * (`total_inactive_file` under cgroup v1, `inactive_file` under v2).
 */
export function memoryUsed(m: EngineStats["memory_stats"]): number {
  const usage = m?.usage ?? 0;
  const v1 = m?.stats?.total_inactive_file;
  if (v1 !== undefined && v1 < usage) return usage - v1;
  const v2 = m?.stats?.inactive_file;
  if (v2 !== undefined && v2 < usage) return usage - v2;
  return usage;
}

/**
 * Pure: the engine's answer as a reading. `configuredLimit` is the container's own limit
 * (`HostConfig.Memory`, 0 when none): without one the engine reports the host's memory as the limit,
 * which is no limit of the container's. Null when the container is not running (no CPU counters).
 */
export function readStats(raw: EngineStats, configuredLimit: number): ContainerStats | null {
  const cpu = cpuCounters(raw.cpu_stats);
  if (!cpu) return null;
  let rx = 0;
  let tx = 0;
  for (const n of Object.values(raw.networks ?? {})) {
    rx += n.rx_bytes ?? 0;
    tx += n.tx_bytes ?? 0;
  }
  return {
    cpu,
    precpu: cpuCounters(raw.precpu_stats),
    memoryBytes: memoryUsed(raw.memory_stats),
    memoryLimitBytes: configuredLimit > 0 ? (raw.memory_stats?.limit ?? configuredLimit) : null,
    netRxBytes: rx,
    netTxBytes: tx,
  };
}
