import type { HostConfig } from "dockerode";
import { type LimitRole, ROLE_CAPABILITIES, type Resources } from "@levelrail/spec/service";

const MiB = 1024 * 1024;

/** Pure: the limits and security options of one container of `role` under `resources`. */
export function hostLimits(
  role: LimitRole,
  r: Resources,
): Pick<HostConfig, "Memory" | "MemorySwap" | "NanoCpus" | "PidsLimit" | "SecurityOpt" | "CapDrop" | "CapAdd"> {
  return {
    // Memory and swap together: a limit the container cannot page its way past.
    ...(r.memoryMb === null ? {} : { Memory: r.memoryMb * MiB, MemorySwap: r.memoryMb * MiB }),
    ...(r.cpus === null ? {} : { NanoCpus: Math.round(r.cpus * 1e9) }),
    PidsLimit: r.pids,
    // No setuid binary or file capability gives a process more than it started with.
    SecurityOpt: ["no-new-privileges:true"],
    CapDrop: ["ALL"],
    CapAdd: [...new Set([...ROLE_CAPABILITIES[role], ...r.capAdd])].sort(),
  };
}
