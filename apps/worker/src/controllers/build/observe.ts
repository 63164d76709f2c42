import type { BuildDesired, BuildObserved } from "./plan";
import type { BuildStore } from "./ports";

/** Reads a build, its service's source and whether another build of that service runs. */
export async function observeBuild(x: { store: BuildStore; runner: string }, id: string): Promise<{ desired: BuildDesired; observed: BuildObserved }> {
  const build = await x.store.build(id);
  const source = build ? await x.store.sourceOf(build.serviceId) : null;
  const serviceBusy = build?.status === "queued" ? await x.store.serviceBusy(build.serviceId, build.id) : false;
  return { desired: { build, source, runner: x.runner }, observed: { serviceBusy } };
}
