import { defineConfig } from "vitest/config";

/** Never collected: dependencies, build output and the Playwright suite (run by `playwright test`). */
const outside = ["**/node_modules/**", "**/.next/**", "**/dist/**", "e2e/**", ".levelrail*/**"];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["**/*.test.ts"],
          exclude: [...outside, "**/*.int.test.ts", "**/*.swarm.test.ts"],
        },
      },
      {
        // Against the real PostgreSQL, Docker engine and Caddy that `npm test` provides (DATABASE_URL,
        // DOCKER_HOST, LEVELRAIL_CADDY_ADMIN); one file at a time, since they share those.
        test: {
          name: "integration",
          include: ["**/*.int.test.ts"],
          exclude: outside,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          // In CI a test that fails is run once more; `npm test` names every test that needed it
          // ("passed on a retry"), so a flake is seen and fixed, not hidden.
          retry: process.env.CI ? 1 : 0,
        },
      },
      {
        // Against a Docker Swarm of real engines that each file makes itself (@levelrail/testkit/swarm:
        // dockerd in network namespaces, as root); run by `npm run test:swarm`, not by `npm test`.
        test: {
          name: "swarm",
          include: ["**/*.swarm.test.ts"],
          exclude: outside,
          testTimeout: 180_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
