import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContainerInspectInfo } from "dockerode";
import { createApp } from "@levelrail/services/app/app";
import { deployService } from "@levelrail/services/release/deploy";
import { createService, deleteService } from "@levelrail/services/service/write";
import { Labels, instanceFilter, networkName } from "@levelrail/spec/naming";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "../../../test/harness";

let s: Awaited<ReturnType<typeof setupSuite>>;
const networks: Record<string, string> = {};

beforeAll(async () => {
  s = await setupSuite("limits");
  for (const app of ["shop", "other"]) networks[app] = networkName(s.shortName, (await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: app } })).id);
  await s.startWorker();
}, 120_000);

afterAll(async () => {
  await s?.teardown();
});

const deploy = async (name: string, app: string, extra: Record<string, unknown> = {}) => {
  await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name, app, image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz", ...extra } });
  await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
};

const inspect = (id: string): Promise<ContainerInspectInfo> => s.runtime.docker.getContainer(id).inspect();

/** The running service container of `name`, inspected. */
async function live(name: string) {
  const st = await s.waitPhase(name, ["running"]);
  const c = (await s.containers(name)).find((x) => x.name === st.activeContainer);
  return inspect(c!.id);
}

/** The engine reports capabilities as CAP_X (20.10) or X: compare them bare. */
const bare = (caps: string[] | null | undefined) => (caps ?? []).map((c) => c.replace(/^CAP_/, "")).sort();

const limitsOf = (info: ContainerInspectInfo) => {
  const h = info.HostConfig;
  return { Memory: h.Memory, MemorySwap: h.MemorySwap, NanoCpus: h.NanoCpus, PidsLimit: h.PidsLimit, SecurityOpt: h.SecurityOpt, CapDrop: h.CapDrop, CapAdd: bare(h.CapAdd) };
};

/** The container's cgroup file `file` of the pids controller (cgroup v1 or v2, cgroupfs or systemd driver), or null when this host hides it. */
function pidsFile(id: string, file: string): string | null {
  const dirs = [`/sys/fs/cgroup/pids/docker/${id}`, `/sys/fs/cgroup/system.slice/docker-${id}.scope`, `/sys/fs/cgroup/docker/${id}`];
  const dir = dirs.find((d) => existsSync(`${d}/${file}`));
  return dir ? readFileSync(`${dir}/${file}`, "utf8") : null;
}

/** How many processes the container has: its cgroup's count, or what the engine lists. */
async function processCount(id: string): Promise<number> {
  const current = pidsFile(id, "pids.current");
  if (current !== null) return Number(current.trim());
  const top = (await s.runtime.docker.getContainer(id).top()) as { Processes?: unknown[] };
  return top.Processes?.length ?? 0;
}

const MiB = 1024 * 1024;

describe("container limits on the real engine", () => {
  it("a service and its pre-deploy hook run with the spec's limits, no-new-privileges and only the role's capabilities plus capAdd", async () => {
    const name = `lim-${s.shortName}`;
    const resources = { memoryMb: 128, cpus: 0.5, pids: 100, capAdd: ["NET_RAW", "KILL"] };
    await deploy(name, "shop", { resources, hooks: { preDeploy: ["/bin/busybox", "sleep", "3"] } });
    const want = {
      Memory: 128 * MiB,
      MemorySwap: 128 * MiB,
      NanoCpus: 500_000_000,
      PidsLimit: 100,
      SecurityOpt: ["no-new-privileges:true"],
      CapDrop: ["ALL"],
      CapAdd: ["CHOWN", "KILL", "NET_RAW", "SETGID", "SETUID"],
    };
    // Inspected while the hook runs (it sleeps 3 s).
    const hook = await waitFor(
      "the pre-deploy hook container",
      async () => (await s.runtime.listContainers([...instanceFilter(s.shortName), `${Labels.service}=${await s.serviceId(name)}`, `${Labels.role}=pre-deploy`]))[0],
      { intervalMs: 50, timeoutMs: 30_000 },
    );
    expect(limitsOf(await inspect(hook.id))).toEqual(want);
    expect(limitsOf(await live(name))).toEqual(want);
  });

  it("a service with the default resources: 4096 processes, no memory or CPU limit, the same privileges", async () => {
    const name = `def-${s.shortName}`;
    await deploy(name, "shop");
    expect(limitsOf(await live(name))).toEqual({
      Memory: 0,
      MemorySwap: 0,
      NanoCpus: 0,
      PidsLimit: 4096,
      SecurityOpt: ["no-new-privileges:true"],
      CapDrop: ["ALL"],
      CapAdd: ["CHOWN", "SETGID", "SETUID"],
    });
    // busybox httpd serves with them (health checked by the deploy, and here).
    const c = (await s.containers(name)).find((x) => x.state === "running");
    expect(await s.body(c!.id, networks.shop!)).toBe("v1\n");
  });

  it("a fork bomb in one service stops at its process limit while a service of another app keeps serving", async () => {
    const bomb = `bomb-${s.shortName}`;
    const calm = `calm-${s.shortName}`;
    const LIMIT = 64;
    await deploy(bomb, "shop", { resources: { pids: LIMIT } });
    await deploy(calm, "other");
    const x = await live(bomb);
    const y = await live(calm);
    const yIp = y.NetworkSettings.Networks[networks.other!]!.IPAddress;
    // Never a bomb without its limit: this host is shared.
    expect(x.HostConfig.PidsLimit).toBe(LIMIT);

    // The classic fork bomb, as argv run inside X (no shell of this host): every process forks two more, forever.
    // Its output goes nowhere, so the exec ends as soon as the first shell has started the bomb.
    await s.runtime.exec(x.Id, ["/bin/busybox", "sh", "-c", "exec >/dev/null 2>&1; f(){ f|f& }; f"], () => {});
    const counts: number[] = [];
    const statuses: number[] = [];
    let slowestMs = 0;
    const until = Date.now() + 5000;
    while (Date.now() < until) {
      counts.push(await processCount(x.Id));
      const t0 = performance.now();
      const res = await fetch(`http://${yIp}:8080/`, { signal: AbortSignal.timeout(2000) });
      statuses.push(res.status);
      await res.text();
      slowestMs = Math.max(slowestMs, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
    const events = pidsFile(x.Id, "pids.events");
    console.log(`fork bomb: ${counts.length} samples, max ${Math.max(...counts)} processes of ${LIMIT}; ${statuses.length} requests to the other service (slowest ${slowestMs.toFixed(1)} ms); pids.events ${events?.trim() ?? "n/a"}`);
    expect(statuses.every((st) => st === 200)).toBe(true);
    expect(Math.max(...counts)).toBeLessThanOrEqual(LIMIT);
    // The bomb did reach the limit: the test would see it pass the limit if there were none.
    expect(Math.max(...counts)).toBeGreaterThanOrEqual(LIMIT - 8);
    if (events !== null) expect(Number(/max (\d+)/.exec(events)?.[1] ?? 0)).toBeGreaterThan(0);

    await deleteService({ ctx: s.ctx, envId: s.ctx.envId, name: bomb });
    await waitFor("the bomb's container to be removed", async () => ((await s.containers(bomb)).length === 0 ? true : undefined), { timeoutMs: 60_000 });
  });
});
