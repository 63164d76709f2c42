/**
 * What the panel costs a browser, measured with Chromium (playwright-core) against the web app's
 * server as `npm start` runs it (server/main.mjs) over its build (apps/web/.next as `npm start` built it; this does not build): bytes
 * transferred (as DevTools counts them: encoded, headers included) for a cold first load of a
 * page, the framework's share of it, and what an open dashboard pulls while nobody touches it;
 * then the same cold first load of every page of the panel the fleet has something to show on
 * (bench/pages.ts reads the same pages' JavaScript from the build's manifests, without a browser).
 * Used by bench/scale.ts with its fleet present.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium } from "playwright-core";
import { freePort } from "@levelrail/testkit/registry";
import { precompress } from "../apps/web/server/static-br.mjs";
import { waitFor } from "@levelrail/testkit/wait";

/** BENCH_WEB_DETAIL=1: log every request of a first load, not only the largest. */
const detail = process.env.BENCH_WEB_DETAIL === "1";
const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const defaultWebDir = join(repoRoot, "apps", "web");

export interface WebFigures {
  dashboardKB: number;
  servicePageKB: number;
  frameworkKB: number;
  idleKBPerMin: number;
  /** Every page's cold first load (kB), by the address pattern of its route; null: nothing in the fleet to show there. */
  pages: { route: string; kB: number | null }[];
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

type Session = Awaited<ReturnType<BrowserContext["storageState"]>>;

/** Bytes of a cold first load of `path` (a fresh context: empty cache, the session's cookie), until the network is idle. */
async function firstLoad(browser: Browser, baseURL: string, session: Session | undefined, path: string, ready: string | null) {
  const context = await browser.newContext({ baseURL, ...(session ? { storageState: session } : {}) });
  const page = await context.newPage();
  const t = await meter(context, page);
  await page.goto(path, { waitUntil: "networkidle" });
  if (ready !== null) await page.getByRole("heading", { name: ready }).first().waitFor();
  return { t, context, page };
}

/** A cold first load's kB of each page of the panel, signed in (the sign-in page signed out). */
async function everyPage(browser: Browser, baseURL: string, session: Session, service: { envId: string; app: string; name: string }, known: Map<string, number>, log: (line: string) => void) {
  const pages: { route: string; path: string | null; ready: string | null; signedOut?: true }[] = [
    { route: "/", path: "/", ready: "Apps" },
    { route: "/environments/[envId]/services/[name]", path: `/environments/${service.envId}/services/${service.name}`, ready: service.name },
    { route: "/environments/[envId]", path: `/environments/${service.envId}`, ready: null },
    { route: "/environments/[envId]/apps/[name]", path: `/environments/${service.envId}/apps/${service.app}`, ready: service.app },
    { route: "/environments/[envId]/databases/[name]", path: null, ready: "" },
    { route: "/hook-runs/[id]", path: null, ready: "" },
    { route: "/deploys", path: "/deploys", ready: "Deploys" },
    { route: "/settings", path: "/settings", ready: "Settings" },
    { route: "/settings/members", path: "/settings/members", ready: "Members" },
    { route: "/settings/audit", path: "/settings/audit", ready: "Audit log" },
    // The cards of the one Settings page, each on its own page since issue 43 item 6.
    ...(
      [
        ["security", "Sign-in security"],
        ["sso", "Single sign-on"],
        ["env", "Organization env"],
        ["quotas", "Quotas"],
        ["backup-targets", "Backup targets"],
        ["registry-credentials", "Registry credentials"],
        ["git-credentials", "Git credentials"],
        ["notifications", "Notifications"],
        ["env-tiers", "Env tiers"],
        ["previews", "Previews"],
      ] as const
    ).map(([page, ready]) => ({ route: `/settings/${page}`, path: `/settings/${page}`, ready })),
    { route: "/settings/api", path: "/settings/api", ready: "API reference" },
    { route: "/account", path: "/account", ready: "Account" },
    { route: "/nodes", path: "/nodes", ready: "Nodes" },
    { route: "/login", path: "/login", ready: "Sign in", signedOut: true },
    { route: "/invite/[token]", path: null, ready: "" },
  ];
  const out: { route: string; kB: number | null }[] = [];
  for (const p of pages) {
    const measured = known.get(p.route);
    if (measured !== undefined || p.path === null) {
      out.push({ route: p.route, kB: measured ?? null });
      continue;
    }
    const load = await firstLoad(browser, baseURL, p.signedOut ? undefined : session, p.path, p.ready);
    out.push({ route: p.route, kB: load.t.total / 1024 });
    const largest = [...load.t.byUrl].sort((a, b) => b[1] - a[1]).slice(0, detail ? undefined : 4).map(([url, bytes]) => `${new URL(url).pathname} ${(bytes / 1024).toFixed(1)} kB`);
    log(`web: ${p.route}: ${load.t.byUrl.size} requests; largest: ${largest.join(", ")}`);
    await load.context.close();
  }
  return out;
}

export async function webFigures(o: {
  databaseUrl: string;
  masterKey: string;
  who: { email: string; password: string };
  service: string;
  idleMs: number;
  log: (line: string) => void;
  /** The built web app to serve (default: this checkout's apps/web), e.g. another checkout's to compare. */
  webDir?: string;
}): Promise<WebFigures> {
  const webDir = o.webDir ?? defaultWebDir;
  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), "levelrail-web-bench-"));
  // The server `npm start` runs (server/main.mjs: Next's handler behind node:http), not `next start`,
  // over the build as `npm start` leaves it: its static files brotli-compressed too.
  await precompress(join(webDir, ".next"));
  const server: ChildProcess = spawn(process.execPath, [join(webDir, "server", "main.mjs")], {
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
    await waitFor("the web server to answer", async () => ((await fetch(`${baseURL}/login`).catch(() => null))?.ok ? true : undefined), { timeoutMs: 60_000, intervalMs: 250 });
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-background-networking"] });

    const signIn = await signedIn(browser, baseURL, o.who);
    const session = await signIn.storageState();
    await signIn.close();
    const service = await firstLoad(browser, baseURL, session, `/services/${o.service}`, o.service);
    // /services/<name> redirects to the service's page in its environment; its crumbs link its app.
    const envId = /\/environments\/([^/]+)\/services\//.exec(service.page.url())?.[1] ?? "";
    const appHref = (await service.page.locator('a[href*="/apps/"]').first().getAttribute("href")) ?? "";
    const app = decodeURIComponent(appHref.split("/apps/")[1] ?? "");
    await service.context.close();

    const dash = await firstLoad(browser, baseURL, session, "/", "Apps");
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
      .slice(0, detail ? undefined : 5)
      .map(([url, bytes]) => `${new URL(url).pathname} ${(bytes / 1024).toFixed(1)} kB`);
    await new Promise((r) => setTimeout(r, o.idleMs));
    const idleBytes = dash.t.total - before;
    o.log(`web: dashboard ${dash.t.byUrl.size} requests on first load; ${framework.length} framework chunks; largest others: ${own.join(", ")}`);
    o.log(`web: idle dashboard made ${dash.t.requests - requestsBefore} requests in ${(o.idleMs / 1000).toFixed(0)} s`);
    await dash.context.close();
    const known = new Map([
      ["/", dashboardBytes / 1024],
      ["/environments/[envId]/services/[name]", service.t.total / 1024],
    ]);
    const pages = await everyPage(browser, baseURL, session, { envId, app, name: o.service }, known, o.log);
    return {
      pages,
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
