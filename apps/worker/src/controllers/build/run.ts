import { mkdir, mkdtemp, readFile, readdir, realpath, rm, stat } from "node:fs/promises";
import { isAbsolute, join, normalize, relative, sep } from "node:path";
import type { ImageBuilder } from "@levelrail/docker/build";
import { reservedBuildArg } from "@levelrail/spec/git";
import { buildCacheNamespace, builtImageLabels, builtImageName } from "@levelrail/spec/naming";
import { type Redactor, redactor } from "@levelrail/spec/redact";
import { type BaseImageDeps, checkBaseImages } from "./base-images";
import { checkDockerfile, imageUses } from "./dockerfile";
import { type GitAccess, type GitClient, GitError } from "./git";
import { publicUrl } from "./git-errors";
import { BuildLogWriter } from "./log";
import type { BuildEnv, BuildRecord, BuildStore, BuiltDeployer, SourceRecord } from "./ports";
import { INTERRUPTED } from "./plan";
import type { RunningBuilds } from "./running";

export interface RunDeps {
  shortName: string;
  store: BuildStore;
  env: BuildEnv;
  git: GitClient;
  /** The engine's builder; null: this worker cannot build (every build fails saying so). */
  builder: ImageBuilder | null;
  deployer: BuiltDeployer;
  /** What the engine's image store holds that a build may start from (its organization's only). */
  baseImages: BaseImageDeps;
  /** Built images are recorded like pulled ones, so image cleanup keeps them only while kept releases need them. */
  images: { recordPull(imageId: string, ref: string): Promise<void> };
  runner: string;
  /** A build's deadline (ms), fetch included. */
  timeoutMs: number;
  /** Where checkouts go (removed after each build) and each source's known-hosts file lives. */
  workDir: string;
  running: RunningBuilds;
  now: () => Date;
}

/** Why a run stopped early. */
class Stopped extends Error {
  constructor(readonly why: "deadline" | "cancelled" | "stopping") {
    super(why);
  }
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * One build from start to end: resolve the ref, fetch exactly that commit, build it with BuildKit,
 * deploy it when asked. Every outcome is written on the build (succeeded, failed with its step,
 * cancelled); a failure never touches the running release. Throws only for the store or the engine
 * being unreachable (the runner retries, and the retry starts over).
 */
export async function runBuild(x: RunDeps, b: BuildRecord, s: SourceRecord): Promise<void> {
  const started = x.now();
  // Superseded or cancelled since it was observed: it never starts (its next pass says so).
  if (!(await x.store.startBuild(b.id, x.runner, started, `fetching ${b.ref}`))) return;
  await x.store.clearLog(b.id);
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(new Stopped("deadline")), x.timeoutMs);
  const unregister = x.running.register(b.id, (why) => controller.abort(new Stopped(why)));
  const checkout = await mkdtemp(join(x.workDir, `checkout-${b.id.slice(0, 8)}-`));
  let redact: Redactor = redactor([]);
  let log: BuildLogWriter | null = null;
  const finish = (update: Parameters<BuildStore["updateBuild"]>[1]) => x.store.updateBuild(b.id, { finishedAt: x.now(), ...update, ...(update.message ? { message: redact(update.message) } : {}) });
  try {
    const credential = s.credentialId ? await x.store.credential(s.orgId, s.credentialId) : null;
    if (s.credentialId && !credential) return void (await finish({ status: "failed", step: "fetching", message: "the source's git credential was deleted" }));
    // A source saved before BUILDKIT_* keys were refused: the engine's own options are never a tenant's.
    const reserved = s.buildArgs.find(reservedBuildArg);
    if (reserved) return void (await finish({ status: "failed", step: "fetching", message: `build arg ${reserved} is the build engine's own option; remove it from the source's buildArgs` }));
    const env = await x.env.buildEnv(s.serviceId, s.buildArgs);
    if (!env.ok) return void (await finish({ status: "failed", step: "fetching", message: `the build args cannot be resolved: ${env.problem}` }));
    const gitSecrets = credential ? [credential.kind === "token" ? credential.token : credential.privateKey] : [];
    redact = redactor([...env.secrets, ...gitSecrets]);
    log = new BuildLogWriter(x.store, b.id, [...env.secrets, ...gitSecrets]);
    const access: GitAccess = { url: s.url, credential, knownHostsFile: join(x.workDir, "known_hosts", s.id) };

    // The ref's head now (a manual build, a poll's commit gone stale is still built as asked).
    let commit = b.commit;
    try {
      if (!commit) {
        commit = await x.git.resolve(access, b.ref, controller.signal);
        await x.store.updateBuild(b.id, { commit });
      } else if (b.trigger === "push" && b.deploy) {
        // A push deploys only while its commit is the branch's tip on the forge: a delivery sent again
        // (a replay the webhook's chain cannot tell, docs/security.md "replayed pushes") rolls nothing back or forward.
        const tip = await x.git.resolve(access, b.ref, controller.signal);
        if (tip !== commit) {
          const message = `the branch is at ${tip.slice(0, 12)} now; a delivery for ${commit.slice(0, 12)} was not deployed`;
          log.line(message);
          await log.close();
          return void (await finish({ status: "cancelled", step: "fetching", message }));
        }
      }
      log.line(`fetching ${publicUrl(s.url)} at ${commit} (${b.ref})`);
      await x.git.checkout(access, commit, checkout, controller.signal);
      await x.store.sourceSeen(s.id, { error: "", ...(b.commit ? {} : { commit }) });
    } catch (err) {
      if (controller.signal.aborted) throw controller.signal.reason;
      if (!(err instanceof GitError)) throw err;
      await x.store.sourceSeen(s.id, { error: err.message });
      return void (await finish({ status: "failed", step: "fetching", message: err.message }));
    }

    const context = await contextDir(checkout, s.path, s.dockerfile);
    if (!context.ok) return void (await finish({ status: "failed", step: "fetching", message: context.message }));
    // What the Dockerfile may ask of the shared engine (its frontend, secret and SSH mounts, ADD of a URL), before anything is sent.
    const checked = checkDockerfile(context.dockerfileText);
    if (!checked.ok) {
      const where = `${s.dockerfile} line ${checked.line}`;
      log.line(`${where}: ${checked.message}`);
      await log.close();
      return void (await finish({ status: "failed", step: where, message: `${where}: ${checked.message}` }));
    }
    // What it starts from (FROM, COPY --from, --mount=from), as BuildKit will read it, is what the organization may pull.
    await x.store.updateBuild(b.id, { step: "checking base images", message: "checking the images the Dockerfile uses" });
    const uses = imageUses(context.dockerfileText, env.args);
    const base = uses.ok ? await checkBaseImages(x.baseImages, s.orgId, uses.images) : uses;
    if (!base.ok) {
      const where = `${s.dockerfile} line ${base.line}`;
      log.line(`${where}: ${base.message}`);
      await log.close();
      return void (await finish({ status: "failed", step: where, message: `${where}: ${base.message}` }));
    }
    if (!x.builder) return void (await finish({ status: "failed", step: "building", message: "this worker has no image builder configured" }));
    const image = builtImageName(x.shortName, s.serviceId, commit);
    await x.store.updateBuild(b.id, { step: "building", message: `building ${commit.slice(0, 12)}` });
    const result = await x.builder.build(
      {
        contextDir: context.dir,
        dockerfile: s.dockerfile,
        target: s.target,
        buildArgs: env.args,
        cacheNamespace: buildCacheNamespace(x.shortName, { orgId: s.orgId, serviceId: s.serviceId }),
        labels: builtImageLabels(x.shortName, { orgId: s.orgId, serviceId: s.serviceId, commit, source: publicUrl(s.url) }),
        tag: image,
      },
      (line) => log?.line(line),
      controller.signal,
    );
    await log.close();
    if (!result.ok) return void (await finish({ status: "failed", step: result.step ?? "building", message: result.message }));
    await x.images.recordPull(result.imageId, image);
    const took = seconds(x.now().getTime() - started.getTime());
    const cached = `${result.cachedSteps} of ${result.steps} steps cached`;
    if (!b.deploy) return void (await finish({ status: "succeeded", step: null, imageId: result.imageId, image, message: `built in ${took} (${cached})` }));
    await x.store.updateBuild(b.id, { step: "deploying", imageId: result.imageId, image, message: `built in ${took} (${cached}); deploying` });
    const releaseId = await x.deployer.deployBuilt({ buildId: b.id, orgId: b.orgId, serviceId: s.serviceId, image, imageId: result.imageId });
    await finish({ status: "succeeded", step: null, message: `built in ${took} (${cached}); deploying as release ${releaseId}` });
  } catch (err) {
    const why = err instanceof Stopped ? err.why : controller.signal.reason instanceof Stopped ? controller.signal.reason.why : null;
    if (why === null) throw err;
    await log?.close().catch(() => {});
    if (why === "stopping") return void (await finish({ status: "failed", message: INTERRUPTED }));
    if (why === "cancelled") return void (await finish({ status: "cancelled", message: "cancelled while it ran; the running release is untouched" }));
    return void (await finish({ status: "failed", message: `the build took longer than ${Math.round(x.timeoutMs / 1000)} s (LEVELRAIL_BUILD_TIMEOUT_SECONDS) and was stopped` }));
  } finally {
    clearTimeout(deadline);
    unregister();
    await log?.close().catch(() => {});
    await rm(checkout, { recursive: true, force: true });
  }
}

/** A Dockerfile is read whole before the build (BuildKit's frontend refuses larger ones too). */
const MAX_DOCKERFILE_BYTES = 1024 * 1024;

/**
 * The build context `path` inside the checkout (no symlink may lead out of it), with its Dockerfile
 * in it, read. The Dockerfile's own path has no symlink at all: the engine resolves one inside the
 * context's root, this disk inside the checkout's, and the file checked must be the file built.
 */
export async function contextDir(checkout: string, path: string, dockerfile: string): Promise<{ ok: true; dir: string; dockerfileText: string } | { ok: false; message: string }> {
  const root = await realpath(checkout);
  const inside = (p: string) => {
    const rel = relative(root, p);
    return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
  };
  let dir: string;
  try {
    dir = await realpath(join(root, path));
  } catch {
    return { ok: false, message: `the build context ${path} does not exist in the repository` };
  }
  if (!inside(dir) || !(await stat(dir)).isDirectory()) return { ok: false, message: `the build context ${path} is not a directory inside the repository` };
  let file: string;
  try {
    file = await realpath(join(dir, dockerfile));
    if (!inside(file) || !(await stat(file)).isFile()) throw new Error("outside");
  } catch {
    return { ok: false, message: `${dockerfile} does not exist in the build context ${path}` };
  }
  if (file !== join(dir, normalize(dockerfile))) return { ok: false, message: `${dockerfile} is a symbolic link (or lies under one); the Dockerfile must be a plain file` };
  if ((await stat(file)).size > MAX_DOCKERFILE_BYTES) return { ok: false, message: `${dockerfile} is larger than 1 MiB` };
  return { ok: true, dir, dockerfileText: await readFile(file, "utf8") };
}

/** Makes the work directory (checkouts, known-hosts files) private to the worker; checkouts a killed worker left go. */
export async function ensureWorkDir(dir: string): Promise<void> {
  await mkdir(join(dir, "known_hosts"), { recursive: true, mode: 0o700 });
  for (const name of await readdir(dir)) if (name.startsWith("checkout-")) await rm(join(dir, name), { recursive: true, force: true });
}
