/**
 * What the panel costs a browser, measured with Chromium (playwright-core) against `next start`
 * of the built web app (apps/web/.next as `npm start` built it; this does not build): bytes
 * transferred (as DevTools counts them: encoded, headers included) for a cold first load of a
 * page, the framework's share of it, and what an open dashboard pulls while nobody touches it.
 * Used by bench/scale.ts with its fleet present.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { freePort } from "@levelrail/testkit/registry";
import { waitFor } from "@levelrail/testkit/wait";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const webDir = join(repoRoot, "apps", "web");

export interface WebFigures {
  dashboardKB: number;
  servicePageKB: number;
  frameworkKB: number;
  idleKBPerMin: number;
}

interface Transfer {
  total: number;
  /** Requests finished. */
  requests: number;
  byUrl: Map<string, number>;
}

/** Counts the bytes of every request of `context`'s pages from now on (CDP: encodedDataLength). */
async function meter(context: BrowserContext, page: Awaited<ReturnType<BrowserContext["newPage"]>>): Promise<Transfer> {
  const t: Transfer = { total: 0, requests: 0, byUrl: new Map() };
  const urls = new Map<string, string>();
  const headers = new Map<string, number>();
  const count = (requestId: string, bytes: number) => {
    t.total += bytes;
    t.requests += 1;
    const url = urls.get(requestId) ?? "?";
    t.byUrl.set(url, (t.byUrl.get(url) ?? 0) + bytes);
  };
  const cdp = await context.newCDPSession(page);
  cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, e.request.url));
  // The bytes received with the response's head: what a request costs that never finishes loading.
  cdp.on("Network.responseReceived", (e) => headers.set(e.requestId, e.response.encodedDataLength));
  cdp.on("Network.loadingFinished", (e) => count(e.requestId, e.encodedDataLength));
  // Chromium reports a fetch answered 304 as a cancelled load, not a finished one: its head still crossed the wire.
  cdp.on("Network.loadingFailed", (e) => {
    const bytes = headers.get(e.requestId);
    if (bytes !== undefined) count(e.requestId, bytes);
  });
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: false });
  return t;
}

/** A fresh context (empty cache) signed in as the operator. */
async function signedIn(browser: Browser, baseURL: string, who: { email: string; password: string }): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL });
  // Sign-in is rate limited (3 per 10 s): a 429 waits for the limiter.
  await waitFor(
    "sign-in to succeed",
    async () => {
      const res = await context.request.post("/api/auth/sign-in/email", { data: who, headers: { origin: baseURL } });
      if (res.status() === 200) return true;
      if (res.status() !== 429) throw new Error(`sign-in answered ${res.status()}: ${await res.text()}`);
      return undefined;
    },
    { timeoutMs: 30_000, intervalMs: 2000 },
  );
  return context;
}

/** Bytes of a cold first load of `path`, until the network is idle. */
async function firstLoad(browser: Browser, baseURL: string, who: { email: string; password: string }, path: string, ready: string) {
  const context = await signedIn(browser, baseURL, who);
  const page = await context.newPage();
  const t = await meter(context, page);
  await page.goto(path, { waitUntil: "networkidle" });
  await page.getByRole("heading", { name: ready }).first().waitFor();
  return { t, context, page };
}

export async function webFigures(o: {
  databaseUrl: string;
  masterKey: string;
  who: { email: string; password: string };
  service: string;
  idleMs: number;
  log: (line: string) => void;
}): Promise<WebFigures> {
  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), "levelrail-web-bench-"));
  const server: ChildProcess = spawn(process.execPath, [join(repoRoot, "node_modules/next/dist/bin/next"), "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: webDir,
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: o.databaseUrl,
      LEVELRAIL_MASTER_KEY: o.masterKey,
      LEVELRAIL_DATA_DIR: dataDir,
      PORT: String(port),
      LEVELRAIL_PUBLIC_URL: baseURL,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  let browser: Browser | null = null;
  try {
    await waitFor("next start to answer", async () => ((await fetch(`${baseURL}/login`).catch(() => null))?.ok ? true : undefined), { timeoutMs: 60_000, intervalMs: 250 });
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-background-networking"] });

    const service = await firstLoad(browser, baseURL, o.who, `/services/${o.service}`, o.service);
    await service.context.close();

    const dash = await firstLoad(browser, baseURL, o.who, "/", "Apps");
    // The framework: the chunks every page loads first (build-manifest's rootMainFiles: React, Next's runtime).
    const manifest = JSON.parse(readFileSync(join(webDir, ".next", "build-manifest.json"), "utf8")) as { rootMainFiles: string[]; polyfillFiles?: string[] };
    const framework = [...manifest.rootMainFiles, ...(manifest.polyfillFiles ?? [])];
    let frameworkBytes = 0;
    for (const [url, bytes] of dash.t.byUrl) if (framework.some((f) => url.endsWith(`/_next/${f}`))) frameworkBytes += bytes;
    const dashboardBytes = dash.t.total;

    // Idle: the dashboard left open, its live queries polling.
    const before = dash.t.total;
    const requestsBefore = dash.t.requests;
    // What the first load spent beyond the framework, largest first (to see what grows with the fleet).
    const own = [...dash.t.byUrl]
      .filter(([url]) => !framework.some((f) => url.endsWith(`/_next/${f}`)))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([url, bytes]) => `${new URL(url).pathname} ${(bytes / 1024).toFixed(1)} kB`);
    await new Promise((r) => setTimeout(r, o.idleMs));
    const idleBytes = dash.t.total - before;
    o.log(`web: dashboard ${dash.t.byUrl.size} requests on first load; ${framework.length} framework chunks; largest others: ${own.join(", ")}`);
    o.log(`web: idle dashboard made ${dash.t.requests - requestsBefore} requests in ${(o.idleMs / 1000).toFixed(0)} s`);
    return {
      dashboardKB: dashboardBytes / 1024,
      servicePageKB: service.t.total / 1024,
      frameworkKB: frameworkBytes / 1024,
      idleKBPerMin: idleBytes / 1024 / (o.idleMs / 60_000),
    };
  } finally {
    await browser?.close();
    server.kill("SIGTERM");
    rmSync(dataDir, { recursive: true, force: true });
  }
}
