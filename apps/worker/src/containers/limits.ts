import type { HostConfig } from "dockerode";
import type { Capability, Resources } from "@levelrail/spec/service";

/** What a container is for, as far as its privileges go. */
export type LimitRole = "service" | "pre-deploy" | "database";

/**
 * The capabilities each role keeps after dropping all of Docker's default set (a spec's `capAdd`
 * adds to these). A service or its hook keeps what an image needs to start as root and step down to
 * its own user (nginx, redis and most official images do): no raw sockets, device nodes, chroot or
 * file-capability games. Binding a port below 1024 needs nothing (the engine sets
 * `ip_unprivileged_port_start=0` in every container). A database also owns and reads its data
 * directory whoever made the files.
 */
export const ROLE_CAPABILITIES: Record<LimitRole, readonly Capability[]> = {
  service: ["CHOWN", "SETGID", "SETUID"],
  "pre-deploy": ["CHOWN", "SETGID", "SETUID"],
  database: ["CHOWN", "DAC_OVERRIDE", "FOWNER", "SETGID", "SETUID"],
};

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
