import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "@levelrail/services/app/app";
import { createRegistryCredential } from "@levelrail/services/config/registry-credentials";
import type { Ctx } from "@levelrail/services/context";
import { getDatabase } from "@levelrail/services/database/view";
import { createDatabase } from "@levelrail/services/database/write";
import { deployService } from "@levelrail/services/release/deploy";
import { getService, getStatus } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { databaseFilter, instanceFilter, serviceFilter } from "@levelrail/spec/naming";
import { ensureTestImage } from "@levelrail/testkit/images";
import { startRegistry } from "@levelrail/testkit/registry";
import { seedOrg } from "@levelrail/testkit/seed";
import { waitFor } from "@levelrail/testkit/wait";
import { setupSuite } from "../../../test/harness";
import { repositoryKey } from "./reference";

/**
 * The engine's image cache is shared by every organization. Organization A pulls a private image
 * with its own registry credential; organization B names the same reference (or its digest, or its
 * bare id, or an id prefix, or through a database) and must not run it. An image built on the host
 * stays usable by anyone.
 */
let s: Awaited<ReturnType<typeof setupSuite>>;
let registry: Awaited<ReturnType<typeof startRegistry>>;
let orgB: Awaited<ReturnType<typeof seedOrg>>;
let hostTag: string;
/** Tags this suite gives the host-built image under Docker Hub names (removed after). */
const hubTags: string[] = [];
let ref: string;

type Place = Ctx & { envId: string };

beforeAll(async () => {
  s = await setupSuite("imgaccess");
  orgB = await seedOrg(s.db, "imgaccess-b", s.kit);
  for (const ctx of [s.ctx, orgB]) await createApp({ ctx, envId: ctx.envId, input: { name: "shop" } });
  registry = await startRegistry();
  // The private image: built on the host under its own tag, pushed to the registry with A's login,
  // its registry tag dropped again so A's deploy has to pull it.
  hostTag = `levelrail-test/private-${s.shortName}:v1`;
  await ensureTestImage(s.runtime.docker, { tag: hostTag, body: "private\n", healthy: true });
  ref = `${registry.server}/private/web-${s.shortName}:v1`;
  await s.runtime.docker.getImage(hostTag).tag({ repo: ref.slice(0, ref.lastIndexOf(":")), tag: "v1" });
  const push = await s.runtime.docker.getImage(ref).push({ authconfig: { username: registry.username, password: registry.password, serveraddress: registry.server } });
  await new Promise<void>((resolve, reject) =>
    s.runtime.docker.modem.followProgress(push, (err: Error | null, out: { error?: string }[]) =>
      err || out.some((o) => o.error) ? reject(err ?? new Error(out.find((o) => o.error)?.error)) : resolve(),
    ),
  );
  await s.runtime.docker.getImage(ref).remove();
  await s.startWorker();
}, 120_000);

afterAll(async () => {
  await registry?.stop();
  await s?.teardown();
  for (const t of hubTags) await s?.runtime.docker.getImage(t).remove().catch(() => {});
  // A database's volume, should one have been made (none is when its image is refused).
  for (const v of (await s?.runtime.listVolumes(instanceFilter(s.shortName))) ?? []) await s.runtime.removeVolume(v.name).catch(() => {});
  await s?.runtime.docker.getImage(hostTag).remove({ force: true }).catch(() => {});
});

const svc = (p: Place, name: string, image: string, extra: Record<string, unknown> = {}) =>
  createService({ ctx: p, envId: p.envId, input: { name, app: "shop", image, port: 8080, healthPath: "/healthz", ...extra } });

/** Deploys and waits for the outcome (in place `p`, whichever organization). */
async function deploy(p: Place, name: string, input: Record<string, unknown> = {}) {
  const { id } = await getService({ ctx: p, envId: p.envId, name });
  await deployService({ ctx: p, envId: p.envId, name, input });
  const st = await waitFor(`${name} to finish deploying`, async () => {
    const x = await getStatus({ ctx: p, envId: p.envId, name });
    return (x.phase === "running" || x.phase === "failed") && x.lastDeploy?.outcome !== "pending" && x.lastDeploy?.outcome !== "deploying" ? x : undefined;
  }, { timeoutMs: 60_000, describe: async () => JSON.stringify(await getStatus({ ctx: p, envId: p.envId, name })) });
  return { st, containers: await s.runtime.listContainers(serviceFilter(s.shortName, id)) };
}

describe("private images between organizations", () => {
  it("A pulls and runs its private image with its credential; B naming the same reference without one fails and starts nothing", async () => {
    const cred = await createRegistryCredential({ ctx: s.ctx, input: { name: "private", server: registry.server, username: registry.username, password: registry.password } });
    await svc(s.ctx, "web", ref, { registryCredentialId: cred.id });
    const a = await deploy(s.ctx, "web");
    expect(a.st.phase, a.st.message).toBe("running");
    expect(a.containers).toHaveLength(1);
    expect((await s.runtime.imageRepoDigests(ref))?.length).toBeGreaterThan(0); // now in the engine's cache, from the registry

    await svc(orgB, "web", ref);
    const b = await deploy(orgB, "web");
    expect(b.st.phase).toBe("failed");
    expect(b.st.message).toContain(`image ${ref} is on this host, but its registry did not confirm this service may pull it without a registry credential`);
    expect(b.st.message).toContain("attach a registry credential");
    expect(b.containers).toEqual([]);

    // A deploys it again from the cache, still allowed by its own credential.
    const again = await deploy(s.ctx, "web");
    expect(again.st.phase, again.st.message).toBe("running");
  });

  it("B with a credential the registry refuses, or naming the image by digest, fails the same way", async () => {
    const wrong = await createRegistryCredential({ ctx: orgB, input: { name: "guess", server: registry.server, username: registry.username, password: "not-the-password" } });
    await svc(orgB, "guess", ref, { registryCredentialId: wrong.id });
    const guess = await deploy(orgB, "guess");
    expect(guess.st.phase).toBe("failed");
    expect(guess.st.message).toContain("did not confirm this service may pull it with this service's registry credential");
    expect(guess.containers).toEqual([]);

    const digestRef = (await s.runtime.imageRepoDigests(ref))!.find((d) => d.startsWith(`${registry.server}/`))!;
    await svc(orgB, "bydigest", digestRef);
    const byDigest = await deploy(orgB, "bydigest");
    expect(byDigest.st.phase).toBe("failed");
    expect(byDigest.st.message).toContain("its registry did not confirm this service may pull it without a registry credential");
    expect(byDigest.containers).toEqual([]);
  });

  it("B naming the bare image id is a 400 naming image, on create and on deploy", async () => {
    const id = (await s.runtime.imageId(ref))!;
    for (const image of [id, id.slice("sha256:".length)]) {
      await expect(svc(orgB, "byid", image)).rejects.toMatchObject({ code: "invalid_input", field: "image" });
    }
    await svc(orgB, "byid", "levelrail-test/unrelated:v1");
    await expect(deployService({ ctx: orgB, envId: orgB.envId, name: "byid", input: { image: id } })).rejects.toMatchObject({ code: "invalid_input", field: "image" });
  });

  it("an image built on the host deploys for anyone, even after it was pushed to a registry under another name", async () => {
    await svc(orgB, "hostbuilt", hostTag);
    const b = await deploy(orgB, "hostbuilt");
    expect(b.st.phase, b.st.message).toBe("running");
    expect(b.containers).toHaveLength(1);
  });
});

describe("a database naming another organization's private image", () => {
  it("B's database fails with the registry's refusal and makes nothing; so does A's (a database pulls without a login)", async () => {
    expect((await s.runtime.imageRepoDigests(ref))?.length).toBeGreaterThan(0); // A's pull is in the engine's cache
    for (const [p, name] of [[orgB, "stolen"], [s.ctx, "own"]] as const) {
      const created = await createDatabase({ ctx: { ...p, shortName: s.shortName }, envId: p.envId, input: { name, image: ref } });
      const d = await waitFor(`database ${name} to fail`, async () => {
        const x = await getDatabase({ ctx: p, envId: p.envId, name });
        return x.phase === "failed" || x.phase === "running" || x.phase === "starting" ? x : undefined;
      }, { timeoutMs: 60_000 });
      expect(d.phase, d.message).toBe("failed");
      expect(d.message).toContain(`image ${ref} is on this host, but its registry did not confirm this database may pull it without a registry credential`);
      expect(await s.runtime.listContainers(databaseFilter(s.shortName, created.id))).toEqual([]);
    }
  });

  it("an image id or a short prefix of one is a 400 naming image, for a database and a service", async () => {
    const id = (await s.runtime.imageId(ref))!;
    const hex = id.slice("sha256:".length);
    for (const image of [id, hex, hex.slice(0, 12), `sha256:${hex.slice(0, 12)}`, hex.slice(0, 4)]) {
      await expect(createDatabase({ ctx: orgB, envId: orgB.envId, input: { name: "byprefix-db", image } })).rejects.toMatchObject({ code: "invalid_input", field: "image" });
      await expect(svc(orgB, "byprefix", image)).rejects.toMatchObject({ code: "invalid_input", field: "image" });
    }
  });
});

describe("the names the engine takes for one cached image", () => {
  it("every Docker Hub spelling the engine resolves to the image is one repository to the access check; an id prefix resolves too", async () => {
    const id = (await s.runtime.imageId(hostTag))!;
    const hex = id.slice("sha256:".length);
    const ns = `lrimg-${s.shortName}/private`;
    const official = `lrimg-${s.shortName}`;
    for (const [repo, tag] of [[`docker.io/${ns}`, "v1"], [`docker.io/library/${official}`, "v1"]] as const) {
      await s.runtime.docker.getImage(hostTag).tag({ repo, tag });
      hubTags.push(`${repo}:${tag}`);
    }
    const groups = [
      [`${ns}:v1`, `docker.io/${ns}:v1`, `index.docker.io/${ns}:v1`],
      [`${official}:v1`, `library/${official}:v1`, `docker.io/${official}:v1`, `index.docker.io/${official}:v1`, `index.docker.io/library/${official}:v1`],
    ];
    for (const spellings of groups) {
      for (const name of spellings) {
        expect(await s.runtime.imageId(name), name).toBe(id);
        expect(repositoryKey(name), name).toBe(repositoryKey(spellings[0]!));
      }
    }
    // The engine searches a name it does not know as an id prefix: why the API refuses hex digits alone.
    for (const prefix of [hex.slice(0, 12), `sha256:${hex.slice(0, 12)}`]) expect(await s.runtime.imageId(prefix), prefix).toBe(id);
  });
});
