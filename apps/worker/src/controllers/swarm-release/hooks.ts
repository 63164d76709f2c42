import type { SwarmPort, SwarmServiceSpec, SwarmTask } from "@levelrail/docker/swarm";
import { Labels, Roles, carriesLabels } from "@levelrail/spec/naming";
import { type HookPhase, type HookRecorder, type HookResult, type HookRun, HookStartError, phaseName, recorded } from "../application/hooks";
import { SECRET_LOADER } from "./desired";

// A release's hooks on a swarm: each runs as a swarm job (one task, run once, never restarted) of
// the release's own image, environment, secrets, limits, placement and overlay network, the argv
// exactly (no shell but the secrets' loader, which `exec`s it). The pre-deploy job runs before the
// release's service is made; the post-deploy job once every task is ready, before the switch (on
// one engine it runs inside the new container: a swarm task may be on a node whose engine the
// manager cannot exec in). Its outcome is its task's exit code; its output, the job's logs.

/** How much of a job's output is read (its last lines): the run keeps its last 1 MiB. */
const TAIL_LINES = 100_000;

/** Pure: the job a hook runs as, from the release's service spec (after `withSecretEnv`, when it has secrets). */
export function hookJobSpec(release: SwarmServiceSpec, phase: HookPhase, argv: readonly string[]): SwarmServiceSpec {
  const role = phase === "pre" ? Roles.preDeploy : Roles.postDeploy;
  const loader = release.entrypoint?.join("\0") === SECRET_LOADER.join("\0");
  const [entry, ...args] = argv;
  return {
    ...release,
    name: `${release.name}-${phase}`,
    mode: "job",
    replicas: 1,
    labels: { ...release.labels, [Labels.role]: role },
    containerLabels: { ...release.containerLabels, [Labels.role]: role },
    // With secrets, the loader `exec`s the argv; else the argv is the process itself.
    entrypoint: loader ? [...SECRET_LOADER] : entry === undefined ? [] : [entry],
    command: loader ? [...argv] : args,
    networks: release.networks.map((n) => ({ target: n.target, aliases: [] })),
  };
}

/** The labels that make a swarm service a release's hook job (a name alone proves nothing). */
const OWNER_LABELS = [Labels.instance, Labels.service, Labels.release, Labels.role] as const;
const ownedBy = (labels: Record<string, string>, spec: SwarmServiceSpec) =>
  OWNER_LABELS.every((k) => spec.labels[k] !== undefined) && carriesLabels(labels, Object.fromEntries(OWNER_LABELS.map((k) => [k, spec.labels[k]!])));

/** A job's task that ended (complete, failed, rejected), the newest first. */
const ended = (tasks: SwarmTask[]) =>
  tasks.filter((t) => ["complete", "failed", "rejected", "shutdown", "orphaned", "remove"].includes(t.state)).sort((a, b) => b.updatedAt - a.updatedAt)[0];

export type HookJobSwarm = Pick<SwarmPort, "createService" | "inspectService" | "listTasks" | "removeService" | "serviceLogs">;

/**
 * Runs (or, after a crash, resumes) a hook as a swarm job within its timeout, recording it as on
 * one engine, and removes the job once the run has an outcome. A thrown error leaves the job for
 * the next pass to adopt.
 */
export async function runHookJob(swarm: HookJobSwarm, recorder: HookRecorder | undefined, run: HookRun, spec: SwarmServiceSpec, pollMs = 250): Promise<HookResult> {
  const found = await swarm.inspectService(spec.name);
  const ours = found && ownedBy(found.labels, spec) ? found : null;
  if (recorder && (await recorder.succeeded(run.releaseId, run.phase))) {
    if (ours) await swarm.removeService(ours.id);
    return { ok: true };
  }
  if (found && !ours) return { ok: false, message: `the swarm service name ${spec.name} is taken by one that is not this release's ${phaseName(run.phase)} hook; remove it and deploy again` };
  let id = ours?.id ?? (await swarm.createService(spec));
  if (!id) id = (await swarm.inspectService(spec.name))?.id ?? null;
  if (!id) throw new Error(`the ${phaseName(run.phase)} hook's job ${spec.name} vanished right after it was made`);
  const jobId = id;
  const startedAt = ours?.createdAt || Date.now();
  let stopped = false;
  const remove = async () => {
    stopped = true;
    await swarm.removeService(jobId);
  };
  const result = await recorded(
    recorder,
    run,
    jobId,
    run.timeoutSeconds * 1000 - (Date.now() - startedAt),
    async (onChunk) => {
      // The job's logs as they grow (the engine answers them whole: only what is new is passed on).
      let sent = "";
      const more = async () => {
        const text = await swarm.serviceLogs(jobId, TAIL_LINES);
        if (text.length > sent.length && text.startsWith(sent)) {
          onChunk(text.slice(sent.length));
          sent = text;
        }
      };
      for (let i = 0; !stopped; i++) {
        const done = ended(await swarm.listTasks(jobId));
        if (done) {
          await more();
          if (done.state === "rejected" || done.exitCode === null) throw new HookStartError(done.error || done.message || done.state);
          return done.exitCode;
        }
        if (i % 4 === 3) await more();
        await new Promise((r) => setTimeout(r, pollMs));
      }
      return -1; // timed out: the run was recorded as such
    },
    remove,
    () => swarm.serviceLogs(jobId, TAIL_LINES),
  );
  if (!stopped) await remove();
  return result;
}
