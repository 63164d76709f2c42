// The end-to-end suite: Debian's Chromium against the real stack (worker + `next start`, through
// scripts/serve.mjs) on the real Docker engine and PostgreSQL. `npm test` migrates the database and
// builds the web app first; run alone:
//   DATABASE_URL=… PORT=3130 LEVELRAIL_DATA_DIR=/tmp/lre2e LEVELRAIL_SHORT_NAME=lre2e \
//     npx playwright test -c e2e/playwright.config.ts
import { defineConfig } from "@playwright/test";
import { loadMasterKey } from "@levelrail/secrets";
import { e2eEnv, repoRoot } from "./support/env";

const env = e2eEnv();
// The web app and the worker would each generate the master key on first use and could race; the
// fixtures seal secrets with it too. Create it once, before anything starts (no-op when it exists
// or LEVELRAIL_MASTER_KEY is set).
loadMasterKey({ envKey: env.masterKey, dataDir: env.dataDir });

export default defineConfig({
  testDir: "./tests",
  outputDir: "./test-results",
  // One stack (one worker process, one Docker engine) serves every test: run them one at a time.
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0, // a retried test is named in `npm test`'s summary as a flake to fix
  // A test may deploy a few times; each deploy takes seconds.
  timeout: 120_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["html", { outputFolder: "playwright-report", open: "never" }]],
  use: {
    baseURL: env.baseURL,
    browserName: "chromium",
    headless: true,
    launchOptions: {
      executablePath: env.chromiumPath,
      args: ["--no-sandbox", "--disable-background-networking"],
    },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    actionTimeout: 15_000,
    navigationTimeout: 30_000,
  },
  webServer: {
    command: "node scripts/serve.mjs",
    cwd: repoRoot,
    env: env.serverEnv,
    url: `${env.baseURL}/login`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: "pipe",
    stderr: "pipe",
    // serve.mjs stops the worker and `next start` on SIGTERM.
    gracefulShutdown: { signal: "SIGTERM", timeout: 20_000 },
  },
});
