#!/usr/bin/env node
// `npm test`: the set-up of `npm start` (its own data dir, ports and Caddy, so both can run at
// once) plus Chromium and the test tools, then every check in order, stopping at the first failure:
// typecheck and lint, unit tests, integration tests, the web build and the Playwright suite.
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { buildWeb, migrate } from "./lib/build.mjs";
import { startDatabase } from "./lib/database.mjs";
import { handleSignals, run, runMain, shutdown } from "./lib/lifecycle.mjs";
import { ensureNpm } from "./lib/npm.mjs";
import { bin, ensureMasterKeyFile, repoRoot, resolveDataDir } from "./lib/paths.mjs";
import { ensureDocker, ensureTestTools } from "./lib/system.mjs";
import { Fatal, quietEnv } from "./lib/util.mjs";

/** Test-only defaults, apart from those of `npm start` so a running instance is left alone. */
const TEST = {
  dataDir: ".levelrail-test",
  pgPort: 54339,
  port: "3100",
  caddyAdmin: "http://127.0.0.1:2119",
  ingressHttpPort: "18080",
  ingressHttpsPort: "18443",
  shortName: "lrtest",
  meshDnsPort: "10153",
  metricsPort: "9564",
};

const KINDS = ["typecheck", "lint", "unit", "integration", "e2e"];
/** `npm test -- unit e2e` runs the set-up and only the kinds named; no argument runs all. */
const only = new Set(process.argv.slice(2));
const wanted = (kind) => only.size === 0 || only.has(kind);

const results = []; // { name, ok, seconds, tests?: { passed, failed, skipped } }

const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);

/** Runs one named step (given its result record, to attach test counts); a failure ends the run. */
async function step(name, fn) {
  console.log(`\n${bold(`▶ ${name}`)}`);
  const started = Date.now();
  const result = { name, ok: false, seconds: 0 };
  results.push(result);
  try {
    await fn(result);
    result.ok = true;
  } finally {
    result.seconds = (Date.now() - started) / 1000;
  }
}

/** Runs a test tool from the repo root with the test environment. */
const exec = (cmd, args, env) => run(cmd, args, { cwd: repoRoot, env: { ...process.env, ...quietEnv, ...env } });

/** Counts from a JSON report: vitest's (jest-compatible) or Playwright's. */
function counts(file) {
  if (!existsSync(file)) return { passed: 0, failed: 0, skipped: 0 };
  const r = JSON.parse(readFileSync(file, "utf8"));
  if (r.stats) return { passed: r.stats.expected + r.stats.flaky, failed: r.stats.unexpected, skipped: r.stats.skipped, retried: playwrightRetried(r) };
  // vitest keeps the errors of a failed try on a test that passed on its retry.
  const retried = r.testResults.flatMap((f) => f.assertionResults.filter((t) => t.status === "passed" && t.failureMessages.length > 0).map((t) => t.fullName));
  return { passed: r.numPassedTests, failed: r.numFailedTests, skipped: r.numPendingTests + (r.numTodoTests ?? 0), retried };
}

/** Titles of the Playwright tests that passed only on a retry ("flaky"). */
function playwrightRetried(r) {
  const out = [];
  const walk = (suite) => {
    for (const s of suite.suites ?? []) walk(s);
    for (const spec of suite.specs ?? []) if (spec.tests?.some((t) => t.status === "flaky")) out.push(spec.title);
  };
  walk(r);
  return out;
}

/** Runs a test command that writes a JSON report, and attaches its counts to `result`. */
async function counted(result, report, cmd, args, env) {
  rmSync(report, { force: true });
  try {
    await exec(cmd, args, env);
  } finally {
    result.tests = counts(report);
  }
}

/** One vitest project (a project without test files passes, and shows as "no tests"). */
function vitest(result, project, reports, env) {
  const report = join(reports, `${project}.json`);
  const args = ["run", "--project", project, "--passWithNoTests", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`];
  return counted(result, report, bin("vitest"), args, env);
}

function summary() {
  const total = { passed: 0, failed: 0, skipped: 0 };
  console.log(`\n${bold("Summary")}`);
  for (const r of results) {
    let detail = "";
    if (r.tests) {
      for (const k of Object.keys(total)) total[k] += r.tests[k];
      detail = `${r.tests.passed} passed, ${r.tests.failed} failed${r.tests.skipped ? `, ${r.tests.skipped} skipped` : ""}`;
      if (r.ok && r.tests.passed + r.tests.failed === 0) detail = "no tests";
    }
    console.log(`  ${r.ok ? "ok  " : "FAIL"}  ${r.name.padEnd(50)} ${`${r.seconds.toFixed(1)} s`.padStart(8)}   ${detail}`);
  }
  const failedStep = results.find((r) => !r.ok);
  const retried = results.flatMap((r) => r.tests?.retried ?? []);
  if (retried.length) console.log(`\n  passed on a retry (a flake to fix): ${retried.length}\n${retried.map((t) => `    - ${t}`).join("\n")}`);
  if (failedStep) console.log(`\n  stopped at: ${failedStep.name}`);
  console.log(`\ntests: ${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ""}`);
}

handleSignals({ exitCode: 130 });
await runMain(async () => {
  const unknown = [...only].filter((k) => !KINDS.includes(k));
  if (unknown.length) throw new Fatal(`unknown test kind ${unknown.join(", ")}: choose from ${KINDS.join(", ")}`);
  const dataDir = resolveDataDir(process.env.LEVELRAIL_TEST_DATA_DIR, TEST.dataDir);
  const reports = join(dataDir, "reports");
  mkdirSync(reports, { recursive: true });
  const caddyAdmin = process.env.LEVELRAIL_CADDY_ADMIN ?? TEST.caddyAdmin;
  let env;

  try {
    await step("set-up (packages, Docker, Caddy, PostgreSQL)", async () => {
      await ensureNpm();
      // Imported once the npm packages are installed: these load dockerode and tar-stream.
      const [{ ensureCaddy }, { ensureDataPlane }] = await Promise.all([import("./lib/caddy.mjs"), import("./lib/dataplane.mjs")]);
      await ensureDocker({ dataDir });
      const short = process.env.LEVELRAIL_SHORT_NAME ?? TEST.shortName;
      await ensureCaddy({ dataDir, admin: caddyAdmin, short, attached: true });
      const chromium = await ensureTestTools();
      const db = await startDatabase({ dataDir, port: TEST.pgPort, fresh: true });
      ensureMasterKeyFile(dataDir);
      env = {
        DATABASE_URL: db.url,
        LEVELRAIL_DATA_DIR: dataDir,
        LEVELRAIL_CADDY_ADMIN: caddyAdmin,
        DOCKER_HOST: process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock",
        PORT: TEST.port,
        LEVELRAIL_INGRESS_HTTP_PORT: process.env.LEVELRAIL_INGRESS_HTTP_PORT ?? TEST.ingressHttpPort,
        LEVELRAIL_INGRESS_HTTPS_PORT: process.env.LEVELRAIL_INGRESS_HTTPS_PORT ?? TEST.ingressHttpsPort,
        LEVELRAIL_SHORT_NAME: short,
        LEVELRAIL_CHROMIUM_PATH: chromium,
        LEVELRAIL_MESH_DNS_PORT: process.env.LEVELRAIL_MESH_DNS_PORT ?? TEST.meshDnsPort,
        LEVELRAIL_METRICS_PORT: process.env.LEVELRAIL_METRICS_PORT ?? TEST.metricsPort,
      };
      // The end-to-end suite's worker writes the state this data plane (stopped with the run) answers from.
      await ensureDataPlane({ dataDir, port: Number(env.LEVELRAIL_MESH_DNS_PORT), short, attached: true });
      await migrate(env);
    });
    if (wanted("typecheck")) {
      await step("typecheck (turbo run typecheck, scripts)", async () => {
        await exec(bin("turbo"), ["run", "typecheck"], env);
        await exec(bin("tsc"), ["--noEmit", "-p", "scripts"], env);
      });
    }
    if (wanted("lint")) {
      await step("lint (eslint ., links)", async () => {
        await exec(bin("eslint"), ["."], env);
        await exec(process.execPath, ["scripts/check-links.mjs"], env);
      });
    }
    if (wanted("unit")) await step("unit tests (vitest --project unit)", (r) => vitest(r, "unit", reports, env));
    if (wanted("integration")) {
      await step("integration tests (vitest --project integration)", (r) => vitest(r, "integration", reports, env));
    }
    if (wanted("e2e")) {
      // The typecheck step covered the web app's types: the build need not check them again.
      await step("web build (next build)", () => buildWeb(env, { fast: wanted("typecheck") }));
      await step("end-to-end tests (playwright)", (r) => {
        const report = join(reports, "e2e.json");
        // LEVELRAIL_E2E_FILES (space-separated spec files) runs only those, with the same set-up.
        const files = (process.env.LEVELRAIL_E2E_FILES ?? "").split(/\s+/).filter(Boolean);
        const args = ["test", "-c", "e2e/playwright.config.ts", "--reporter=list,json", ...files];
        return counted(r, report, bin("playwright"), args, { ...env, PLAYWRIGHT_JSON_OUTPUT_FILE: report });
      });
    }
  } catch (err) {
    summary();
    throw err;
  }
  summary();
  await shutdown(0);
});
