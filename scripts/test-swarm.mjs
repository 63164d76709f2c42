#!/usr/bin/env node
// `npm run test:swarm`: the swarm tests (vitest project `swarm`, `*.swarm.test.ts`) on a Docker Swarm
// of real engines that each test file makes itself (@levelrail/testkit/swarm: dockerd in network
// namespaces on a bridge of their own). Needs root; installs the npm packages and the OS tools it
// lacks; never touches the host's own Docker engine. Not part of `npm test`. Extra arguments go to
// vitest (e.g. a file filter).
import { handleSignals, run, runMain, shutdown } from "./lib/lifecycle.mjs";
import { ensureNpm } from "./lib/npm.mjs";
import { bin, repoRoot } from "./lib/paths.mjs";
import { ensureSwarmTools } from "./lib/system.mjs";
import { quietEnv } from "./lib/util.mjs";

handleSignals({ exitCode: 130 });
await runMain(async () => {
  await ensureSwarmTools();
  await ensureNpm();
  const args = ["run", "--project", "swarm", ...process.argv.slice(2)];
  await run(bin("vitest"), args, { cwd: repoRoot, env: { ...process.env, ...quietEnv, LEVELRAIL_SHORT_NAME: process.env.LEVELRAIL_SHORT_NAME ?? "lrsw" } });
  await shutdown(0);
});
