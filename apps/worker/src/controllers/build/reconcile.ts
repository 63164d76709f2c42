import { parseKey } from "@levelrail/spec/keys";
import type { Controller, ReconcileResult } from "../../reconcile/controller";
import { TerminalError } from "../../reconcile/errors";
import { type ExecuteDeps, executeBuild } from "./execute";
import { observeBuild } from "./observe";
import { planBuild } from "./plan";

export type BuildControllerOptions = ExecuteDeps;

/**
 * Runs builds of git-sourced services (key `build:<id>`, docs/operating/git-builds-and-previews.md#builds): each pass observes the build
 * and its source, a pure plan picks the one next step (run, wait for the service's running build,
 * cancel, fail an interrupted one) and the executor does it. A build holds its runner slot while it
 * runs: the build runner's slots are the installation's build slots, shared fairly by organization.
 */
export function buildController(o: BuildControllerOptions): Controller {
  return {
    name: "build",
    async reconcile(text): Promise<ReconcileResult | void> {
      const key = parseKey(text);
      if (key?.kind !== "build") throw new TerminalError(`not a build key: ${JSON.stringify(text)}`);
      const { desired, observed } = await observeBuild(o, key.id);
      return executeBuild(o, desired, planBuild(desired, observed));
    },
  };
}
