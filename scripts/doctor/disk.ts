// Free disk under the data dir and under the engine's root dir.
import { existsSync, statfsSync } from "node:fs";
import { dirname } from "node:path";
import type { EngineProbe } from "./engine";
import { type CheckResult, fail, ok, reason, warn } from "./result";

const GiB = 1024 ** 3;
/** Warn under 10 % or 5 GiB free, fail under 2 % or 1 GiB: what fills a disk (images, backups' restores, logs) comes in GiB. */
export const DISK = { warnRatio: 0.1, warnBytes: 5 * GiB, failRatio: 0.02, failBytes: 1 * GiB } as const;

export interface Space {
  /** What an unprivileged writer may still use (`bavail`). */
  freeBytes: number;
  totalBytes: number;
}

export type StatFs = (path: string) => Space;

/** `statfs` of the path, or of its nearest existing parent (the data dir may not exist yet). */
export const statFs: StatFs = (path) => {
  let p = path;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  const s = statfsSync(p);
  return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
};

const gib = (b: number) => `${(b / GiB).toFixed(1)} GiB`;

/** Pure: the verdict on the free space of one file system. */
export function diskVerdict(name: string, what: string, path: string, s: Space): CheckResult {
  const ratio = s.totalBytes > 0 ? s.freeBytes / s.totalBytes : 0;
  const text = `${gib(s.freeBytes)} free of ${gib(s.totalBytes)} (${(ratio * 100).toFixed(1)} %) under ${what} ${path}`;
  const detail = { path, freeBytes: s.freeBytes, totalBytes: s.totalBytes };
  if (s.freeBytes < DISK.failBytes || ratio < DISK.failRatio) return fail(name, `${text}: deploys, backups and PostgreSQL fail when it is full; free space now (\`docker system df\` shows what the engine holds)`, detail);
  if (s.freeBytes < DISK.warnBytes || ratio < DISK.warnRatio) return warn(name, `${text}: under 10 % or 5 GiB; free some before it fills (\`docker system df\`)`, detail);
  return ok(name, text, detail);
}

export async function dataDiskCheck(dataDir: string, stat: StatFs = statFs): Promise<CheckResult> {
  try {
    return diskVerdict("disk-data", "the data dir", dataDir, stat(dataDir));
  } catch (err) {
    return warn("disk-data", `cannot read the free space under ${dataDir}: ${reason(err)}`);
  }
}

/** The engine's root dir, when the engine runs on this host (a remote `DOCKER_HOST`'s disk is not ours to read). */
export async function engineDiskCheck(engine: EngineProbe, local: boolean, stat: StatFs = statFs): Promise<CheckResult> {
  const i = await engine.info().catch(() => null);
  if (!i) return warn("disk-engine", "not checked: the Docker engine does not answer");
  if (!local) return ok("disk-engine", `not checked: the engine (${engine.where}) runs on another host; check ${i.rootDir} there`);
  try {
    return diskVerdict("disk-engine", "the engine's root", i.rootDir, stat(i.rootDir));
  } catch (err) {
    return warn("disk-engine", `cannot read the free space under ${i.rootDir}: ${reason(err)}`);
  }
}
