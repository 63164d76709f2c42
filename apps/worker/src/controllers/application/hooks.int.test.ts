import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "@levelrail/docker";
import { hookRun } from "@levelrail/db/schema/hooks";
import { service as serviceTable } from "@levelrail/db/schema/services";
import { createApp } from "@levelrail/services/app/app";
import { putSecret } from "@levelrail/services/env/secrets";
import { getHookRun, listHookRuns } from "@levelrail/services/hooks/list";
import { deployService, listReleases, restartService } from "@levelrail/services/release/deploy";
import { getStatus } from "@levelrail/services/service/view";
import { createService, patchService } from "@levelrail/services/service/write";
import { Labels, instanceFilter, networkName } from "@levelrail/spec/naming";
import { ensureTestImage } from "@levelrail/testkit/images";
import { seedOrg } from "@levelrail/testkit/seed";
import { waitFor } from "@levelrail/testkit/wait";
import type { RunnerEvent } from "../../reconcile/runner";
import { pgHookRecorder } from "../../hook-store";
import { IMAGES, setupSuite } from "../../../test/harness";

/**
 * A "database" for the migration test: busybox httpd runs /www/cgi-bin/migrate
 * as CGI, which records (in the db container) that the migration ran and when.
 * The state it changes is served back at /migrated.
 */
const DB_IMAGE = {
  tag: "levelrail-test/hooks-db:v1",
  body: "db\n",
  healthy: true,
  files: {
    "/www/cgi-bin/migrate": {
      mode: 0o755,
      content: [
        "#!/bin/sh",
        'echo "migrated at $(/bin/busybox date +%s)" >> /www/migrated',
        "printf 'Content-Type: text/plain\\r\\n\\r\\n'",
        'echo "migration applied"',
        "",
      ].join("\n"),
    },
  },
} as const;

/** An app that reads the database's state once, when it starts, and serves what it saw at /seen. */
const WEB_IMAGE = {
  tag: "levelrail-test/hooks-web:v1",
  body: "web\n",
  healthy: true,
  cmd: ["/bin/sh", "-c", "/bin/busybox wget -q -O /www/seen http://$DB_HOST:8080/migrated || echo none > /www/seen; exec /bin/busybox httpd -f -p 8080 -h /www"],
} as const;

const SECRET_VALUE = `hook-s3cr3t-${Math.random().toString(36).slice(2)}`;

/** A service that prints its TOKEN and exits before it is ready. */
const LEAK_IMAGE = { tag: "levelrail-test/hooks-leak:v1", body: "leak\n", healthy: true, cmd: ["/bin/sh", "-c", 'echo "token=$TOKEN"; exit 1'] } as const;

let s: Awaited<ReturnType<typeof setupSuite>>;
let worker: Awaited<ReturnType<typeof s.startWorker>>;
let appId: string;
let network: string;

beforeAll(async () => {
  s = await setupSuite("hooks");
  for (const img of [DB_IMAGE, WEB_IMAGE, LEAK_IMAGE]) await ensureTestImage(s.runtime.docker, img);
  appId = (await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } })).id;
  network = networkName(s.shortName, appId);
  worker = await s.startWorker();
}, 120_000);

afterAll(async () => {
  await s?.teardown();
});

afterEach(async () => {
  // Whatever a test did, no hook container outlives its run.
  expect(await hookContainers()).toEqual([]);
});

const svc = (name: string, extra: Record<string, unknown> = {}) =>
  createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name, app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz", ...extra } });

const hookContainers = async () =>
  (await s.runtime.listContainers([...instanceFilter(s.shortName), `${Labels.role}=pre-deploy`])).map((c) => c.name);

/** Runs argv in a container (exec, no shell) and returns its exit code and combined output. */
async function execIn(containerId: string, argv: string[]) {
  let output = "";
  const { exitCode } = await s.runtime.exec(containerId, argv, (t) => (output += t));
  return { exitCode, output };
}

/** GET `path` on the container's address in the app network. */
async function get(containerId: string, path: string): Promise<string> {
  const ip = (await s.runtime.inspectContainer(containerId))?.addresses[network];
  const res = await fetch(`http://${ip}:8080${path}`, { signal: AbortSignal.timeout(2000) });
  return res.text();
}

/** The names of the containers of `service` the engine created since `sinceMs` (from its event log). */
async function createdSince(sinceMs: number, service: string): Promise<string[]> {
  const stream = (await s.runtime.docker.getEvents({
    since: sinceMs / 1000,
    until: Date.now() / 1000, // now: the stream ends at once instead of waiting for more
    filters: { type: ["container"], event: ["create"], label: [`${Labels.service}=${await s.serviceId(service)}`] },
  })) as NodeJS.ReadableStream;
  let text = "";
  for await (const chunk of stream) text += chunk.toString();
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => (JSON.parse(l) as { Actor: { Attributes: { name: string } } }).Actor.Attributes.name);
}

/** Every stored run of a service, oldest first, straight from the table. */
async function runsOf(name: string) {
  const [row] = await s.db.select({ id: serviceTable.id }).from(serviceTable).where(eq(serviceTable.name, name));
  const rows = await s.db.select().from(hookRun).where(eq(hookRun.serviceId, row!.id));
  return rows.sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
}

describe("deploy hooks on the real engine", () => {
  it("a migration-style pre-deploy hook changes the database's state before the new container exists", async () => {
    const db = `db-${s.shortName}`;
    await svc(db, { image: DB_IMAGE.tag });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: db, input: {} });
    await s.waitPhase(db, ["running"]);
    const [dbc] = await s.containers(db);
    expect((await execIn(dbc!.id, ["/bin/busybox", "cat", "/www/migrated"])).exitCode).not.toBe(0);

    const web = `web-${s.shortName}`;
    const argv = ["/bin/busybox", "wget", "-q", "-O-", `http://${db}:8080/cgi-bin/migrate`];
    await svc(web, { image: WEB_IMAGE.tag, env: { DB_HOST: db }, hooks: { preDeploy: argv } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: web, input: {} });
    expect((await s.waitPhase(web, ["running", "failed"])).phase).toBe("running");

    // The migration ran exactly once, in the db container.
    const marker = await execIn(dbc!.id, ["/bin/busybox", "cat", "/www/migrated"]);
    expect(marker.exitCode).toBe(0);
    expect(marker.output).toMatch(/^migrated at \d+\n$/);

    const { runs } = await listHookRuns({ ctx: s.ctx, envId: s.ctx.envId, app: "shop", input: { service: web } });
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    expect(run).toMatchObject({ service: web, phase: "pre", command: argv, outcome: "succeeded", exitCode: 0, message: "" });
    expect((await getHookRun({ ctx: s.ctx, id: run.id })).output).toBe("migration applied\n");

    // The run finished before the new container was even created...
    const [webc] = await s.containers(web);
    const created = Date.parse((await s.runtime.docker.getContainer(webc!.id).inspect()).Created);
    expect(Date.parse(run.finishedAt!)).toBeLessThanOrEqual(created);
    expect(Number(/\d+/.exec(marker.output)![0]) * 1000).toBeLessThanOrEqual(created);
    // ...so the new version saw the migrated state when it started.
    expect(await get(webc!.id, "/seen")).toBe(marker.output);

    // Nothing to do and a Deploy that changes nothing: no hook runs again.
    await worker.resync();
    await worker.application.idle();
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: web, input: {} });
    await s.waitPhase(web, ["running"]);
    expect((await s.containers(web)).map((c) => c.id)).toEqual([webc!.id]);
    expect((await listHookRuns({ ctx: s.ctx, envId: s.ctx.envId, app: "shop", input: { service: web } })).runs).toHaveLength(1);
    expect((await execIn(dbc!.id, ["/bin/busybox", "cat", "/www/migrated"])).output).toBe(marker.output);
  });

  it("a failing pre-deploy hook (exit 3) keeps the old container serving, starts no new one, and is stored with its output", async () => {
    const name = `prefail-${s.shortName}`;
    await svc(name);
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    const ok = await s.waitPhase(name, ["running"]);
    const [old] = await s.containers(name);

    const argv = ["/bin/sh", "-c", "echo applying 0042; /bin/busybox sleep 0.2; echo 'relation users already exists' >&2; /bin/busybox sleep 0.2; echo rolled back; exit 3"];
    await patchService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { hooks: { preDeploy: argv } } });
    const since = Date.now();
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { image: IMAGES.v2.tag } });
    const st = await s.waitPhase(name, ["failed", "running"]);
    expect(st.phase).toBe("failed");
    expect(st.step).toBeNull();
    expect(st.activeContainer).toBe(ok.activeContainer);
    expect(st.message).toContain(`pre-deploy hook ${JSON.stringify(argv)} failed with exit code 3`);
    expect(st.message).toContain(`${ok.activeContainer} keeps serving`);
    const [rel] = await listReleases({ ctx: s.ctx, envId: s.ctx.envId, name });
    expect(rel).toMatchObject({ outcome: "failed" });

    const cs = await s.containers(name);
    expect(cs.map((c) => c.id)).toEqual([old!.id]);
    expect(await get(old!.id, "/")).toBe("v1\n");
    // The only container created was the hook's own one-off container.
    const created = await createdSince(since, name);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatch(/-pre-deploy$/);

    const [run] = await runsOf(name);
    expect(run).toMatchObject({ phase: "pre", outcome: "failed", exitCode: 3, command: argv });
    expect(run!.output).toBe("applying 0042\nrelation users already exists\nrolled back\n");
    expect(run!.finishedAt).not.toBeNull();
  });

  it("a failing post-deploy hook removes the new container and the old one keeps serving", async () => {
    const name = `postfail-${s.shortName}`;
    await svc(name);
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    const ok = await s.waitPhase(name, ["running"]);
    const [old] = await s.containers(name);

    const argv = ["/bin/sh", "-c", "echo smoke test: GET /checkout; echo 502 >&2; exit 4"];
    await patchService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { hooks: { postDeploy: argv } } });
    const since = Date.now();
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { image: IMAGES.v2.tag } });
    const st = await s.waitPhase(name, ["failed", "running"]);
    expect(st.phase).toBe("failed");
    expect(st.message).toContain(`post-deploy hook ${JSON.stringify(argv)} failed with exit code 4`);
    expect(st.activeContainer).toBe(ok.activeContainer);

    // The new container was created (the hook ran inside it) and is gone again.
    const created = await createdSince(since, name);
    expect(created).toHaveLength(1);
    expect(created[0]).not.toBe(ok.activeContainer);
    expect((await s.containers(name)).map((c) => c.id)).toEqual([old!.id]);
    expect(await get(old!.id, "/")).toBe("v1\n");

    const [run] = await runsOf(name);
    expect(run).toMatchObject({ phase: "post", outcome: "failed", exitCode: 4, command: argv });
    expect(run!.output).toContain("smoke test: GET /checkout\n");
    expect(run!.output).toContain("502\n");
  });

  it("a hook that sleeps past its timeout is killed, its container removed, and the run recorded as timed out", async () => {
    const name = `timeout-${s.shortName}`;
    const argv = ["/bin/sh", "-c", "echo waiting for the lock; exec /bin/busybox sleep 60"];
    await svc(name, { hooks: { preDeploy: argv, timeoutSeconds: 2 } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });

    // While it runs, the status says which step the deploy is in, and its container exists.
    const during = await waitFor("the pre-deploy step", async () => {
      const st = await getStatus({ ctx: s.ctx, envId: s.ctx.envId, name });
      return st.step === "pre-deploy" ? st : undefined;
    });
    expect(during.phase).toBe("deploying");
    // The step is recorded just before the container is made: on a busy engine, wait for it.
    await waitFor("the hook container", async () => ((await hookContainers()).length === 1 ? true : undefined), { intervalMs: 20 });

    const st = await s.waitPhase(name, ["failed", "running"]);
    expect(st.phase).toBe("failed");
    expect(st.message).toBe(`pre-deploy hook ${JSON.stringify(argv)} timed out after 2s and was killed`);
    expect(await s.containers(name)).toEqual([]);

    const [run] = await runsOf(name);
    expect(run).toMatchObject({ outcome: "timed_out", exitCode: null, output: "waiting for the lock\n" });
    const took = run!.finishedAt!.getTime() - run!.startedAt.getTime();
    expect(took).toBeGreaterThanOrEqual(1_500);
    expect(took).toBeLessThan(10_000);
  });

  it('["/bin/busybox", "echo", "a; touch /pwned"] is argv, not a shell line: it creates no file anywhere', async () => {
    const name = `argv-${s.shortName}`;
    const argv = ["/bin/busybox", "echo", "a; touch /pwned"];
    expect(existsSync("/pwned")).toBe(false);
    await svc(name, { hooks: { preDeploy: argv, postDeploy: argv } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    expect((await s.waitPhase(name, ["running", "failed"])).phase).toBe("running");

    const runs = await runsOf(name);
    expect(runs.map((r) => [r.phase, r.outcome, r.output])).toEqual([
      ["pre", "succeeded", "a; touch /pwned\n"],
      ["post", "succeeded", "a; touch /pwned\n"],
    ]);
    expect(existsSync("/pwned")).toBe(false);
    // The post-deploy hook ran inside the service container: nothing there either.
    const [c] = await s.containers(name);
    const ls = await execIn(c!.id, ["/bin/busybox", "ls", "/pwned"]);
    expect(ls.exitCode).not.toBe(0);
    expect(ls.output).toContain("No such file or directory");
  });

  it("the hook sees the resolved environment including secrets; the stored run holds no secret it did not print", async () => {
    const name = `hookenv-${s.shortName}`;
    // Proves it saw the secret by printing a digest of it, never the value.
    const argv = ["/bin/sh", "-c", 'echo "plain=$PLAIN"; printf %s "$TOKEN" | /bin/busybox sha256sum'];
    await svc(name, { env: { PLAIN: "from-service-env" }, hooks: { preDeploy: argv, postDeploy: argv } });
    await putSecret({ ctx: s.ctx, envId: s.ctx.envId, name, key: "TOKEN", input: { value: SECRET_VALUE } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    expect((await s.waitPhase(name, ["running", "failed"])).phase).toBe("running");

    const digest = createHash("sha256").update(SECRET_VALUE).digest("hex");
    const runs = await runsOf(name);
    expect(runs.map((r) => [r.phase, r.outcome, r.output])).toEqual([
      ["pre", "succeeded", `plain=from-service-env\n${digest}  -\n`],
      ["post", "succeeded", `plain=from-service-env\n${digest}  -\n`],
    ]);
    expect(JSON.stringify(runs)).not.toContain(SECRET_VALUE);
    const { runs: listed } = await listHookRuns({ ctx: s.ctx, envId: s.ctx.envId, app: "shop", input: { service: name } });
    for (const r of listed) expect(JSON.stringify(await getHookRun({ ctx: s.ctx, id: r.id }))).not.toContain(SECRET_VALUE);
  });

  it("a hook or container that echoes a secret leaves no plaintext in hook_run.output, release.message, the status or the worker's logs", async () => {
    const name = `leak-${s.shortName}`;
    const echo = ["/bin/sh", "-c", 'echo "token=$TOKEN"'];
    const echoAndFail = ["/bin/sh", "-c", 'echo "token=$TOKEN" >&2; exit 5'];
    await svc(name, { hooks: { preDeploy: echo, postDeploy: echoAndFail } });
    await putSecret({ ctx: s.ctx, envId: s.ctx.envId, name, key: "TOKEN", input: { value: SECRET_VALUE } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    expect((await s.waitPhase(name, ["running", "failed"])).phase).toBe("failed");

    // The container itself prints it and exits: its last output goes into the release's message.
    await patchService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { hooks: { preDeploy: null, postDeploy: null } } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { image: LEAK_IMAGE.tag } });
    const st = await s.waitPhase(name, ["running", "failed"]);
    expect(st.phase).toBe("failed");

    // Boolean checks only: a failing assertion never prints the secret.
    const runs = await runsOf(name);
    expect(runs.map((r) => [r.phase, r.outcome])).toEqual([["pre", "succeeded"], ["post", "failed"]]);
    expect(runs.every((r) => r.output.includes("token=[redacted]"))).toBe(true);
    const releases = await listReleases({ ctx: s.ctx, envId: s.ctx.envId, name });
    expect(releases[0]!.message.includes("token=[redacted]")).toBe(true);
    expect(st.message.includes("token=[redacted]")).toBe(true);
    const rows = await Promise.all(["hook_run", "release", "service_status"].map((t) => s.sql.unsafe(`select * from "${t}"`)));
    const haystacks = { database: JSON.stringify(rows), status: JSON.stringify(st), releases: JSON.stringify(releases), logs: s.logs.join("\n") };
    for (const [where, text] of Object.entries(haystacks)) expect({ where, plaintext: text.includes(SECRET_VALUE) }).toEqual({ where, plaintext: false });
  });

  it("hook-run history: newest first, filtered by service, paginated; output with <script> and ANSI escapes is stored verbatim", async () => {
    await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "hist" } });
    const a = `hist-a-${s.shortName}`;
    const b = `hist-b-${s.shortName}`;
    // busybox printf turns \033 into ESC: the hook prints markup and colour codes.
    const markup = ["/bin/busybox", "printf", '<script>alert("x")</script> \\033[31mred\\033[0m <b>bold</b>\\n'];
    const byApp = (name: string, extra: Record<string, unknown>) =>
      createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name, app: "hist", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz", ...extra } });
    await byApp(a, { hooks: { preDeploy: markup } });
    await byApp(b, { hooks: { preDeploy: ["/bin/busybox", "echo", "b"] } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: a, input: {} });
    await s.waitPhase(a, ["running"]);
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: b, input: {} });
    await s.waitPhase(b, ["running"]);
    // A restart is a real cutover: the hook runs again.
    const [before] = await s.containers(a);
    await restartService({ ctx: s.ctx, envId: s.ctx.envId, name: a });
    await waitFor("the restart to cut over", async () => {
      const st = await s.waitPhase(a, ["running"]);
      return st.activeContainer !== before!.name ? st : undefined;
    });

    const all = await listHookRuns({ ctx: s.ctx, envId: s.ctx.envId, app: "hist", input: {} });
    expect(all.runs.map((r) => r.service)).toEqual([a, b, a]);
    expect(all.nextBefore).toBeNull();
    const started = all.runs.map((r) => Date.parse(r.startedAt));
    expect([...started].sort((x, y) => y - x)).toEqual(started);
    for (const r of all.runs) {
      expect(r).toMatchObject({ phase: "pre", outcome: "succeeded", exitCode: 0 });
      expect(r.durationMs).toBeGreaterThanOrEqual(0);
      expect(r).not.toHaveProperty("output"); // lists stay small
    }
    // Another app's runs are not listed.
    expect((await listHookRuns({ ctx: s.ctx, envId: s.ctx.envId, app: "shop", input: {} })).runs.map((r) => r.service)).not.toContain(a);

    const onlyA = await listHookRuns({ ctx: s.ctx, envId: s.ctx.envId, app: "hist", input: { service: a } });
    expect(onlyA.runs.map((r) => r.id)).toEqual([all.runs[0]!.id, all.runs[2]!.id]);

    const pages: string[][] = [];
    let before2: string | undefined;
    for (;;) {
      const page = await listHookRuns({ ctx: s.ctx, envId: s.ctx.envId, app: "hist", input: { limit: 1, ...(before2 ? { before: before2 } : {}) } });
      pages.push(page.runs.map((r) => r.id));
      if (!page.nextBefore) break;
      before2 = page.nextBefore;
    }
    expect(pages).toEqual(all.runs.map((r) => [r.id]));

    const full = await getHookRun({ ctx: s.ctx, id: all.runs[0]!.id });
    expect(full.output).toBe('<script>alert("x")</script> \x1b[31mred\x1b[0m <b>bold</b>\n');
    expect(full.command).toEqual(markup);

    // Another organization sees neither the app's runs nor a run by id.
    const other = await seedOrg(s.db, "hooks-other", s.kit);
    await expect(listHookRuns({ ctx: other, envId: other.envId, app: "hist", input: {} })).rejects.toMatchObject({ code: "not_found" });
    await expect(getHookRun({ ctx: other, id: full.id })).rejects.toMatchObject({ code: "not_found" });
    await expect(getHookRun({ ctx: s.ctx, id: "not-a-uuid" })).rejects.toMatchObject({ code: "not_found" });
  });

  it("the PostgreSQL recorder: a resumed attempt is the same row; a new attempt, or another release's, marks unfinished runs interrupted", async () => {
    const name = `recorder-${s.shortName}`;
    const created = await svc(name);
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { image: IMAGES.v2.tag } });
    await s.waitPhase(name, ["running"]);
    const [r2, r1] = await listReleases({ ctx: s.ctx, envId: s.ctx.envId, name });
    const rec = pgHookRecorder(s.db);
    const run = (releaseId: string, attempt: string) => ({ serviceId: created.id, releaseId, phase: "pre" as const, command: ["/migrate"], attempt });

    const a = await rec.begin(run(r1!.id, "container-a"));
    await rec.progress(a, "half way\n");
    expect(await rec.begin(run(r1!.id, "container-a"))).toBe(a); // resumed: the same row
    expect(await rec.succeeded(r1!.id, "pre")).toBe(false);

    // The superseded release's run never finished: the next release's hook marks it interrupted.
    const b = await rec.begin(run(r2!.id, "container-b"));
    await rec.finish(b, { exitCode: 0, outcome: "succeeded", output: "done\n", message: "" });
    expect(await rec.succeeded(r2!.id, "pre")).toBe(true);
    expect(await rec.succeeded(r2!.id, "post")).toBe(false);
    const rows = await runsOf(name);
    expect(rows.map((r) => [r.id, r.outcome, r.output, r.message])).toEqual([
      [a, "error", "half way\n", "interrupted: the worker stopped during this run"],
      [b, "succeeded", "done\n", ""],
    ]);
    expect(rows[0]!.finishedAt).not.toBeNull();
  });

  it("a worker that dies mid-hook: the next worker adopts the hook container, so the hook runs once and is stored once", async () => {
    const name = `crashhook-${s.shortName}`;
    const argv = ["/bin/sh", "-c", "echo started in $HOSTNAME; /bin/busybox sleep 3; echo finished"];
    await s.stopWorker();
    await svc(name, { hooks: { preDeploy: argv } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    const since = Date.now();
    const key = `service:${await s.serviceId(name)}`;

    // A worker whose wait on the hook fails, as if it died there: the pass ends with the hook running.
    let died!: () => void;
    const dead = new Promise<void>((resolve) => (died = resolve));
    const dying: Runtime = {
      ...s.runtime,
      waitExit: async () => {
        throw new Error("worker killed");
      },
    };
    await s.startWorker({
      runtime: dying,
      onEvent: (e: RunnerEvent) => {
        if (e.type === "error" && e.key === key && (e.error as Error).message === "worker killed") died();
      },
    });
    await dead;
    await s.stopWorker();

    const [hook] = await s.runtime.listContainers([...instanceFilter(s.shortName), `${Labels.service}=${await s.serviceId(name)}`, `${Labels.role}=pre-deploy`]);
    expect(hook?.state).toBe("running");
    const [unfinished] = await runsOf(name);
    expect(unfinished).toMatchObject({ outcome: "running", attempt: hook!.id, finishedAt: null });

    worker = await s.startWorker();
    expect((await s.waitPhase(name, ["running", "failed"])).phase).toBe("running");

    const runs = await runsOf(name);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ id: unfinished!.id, outcome: "succeeded", exitCode: 0, attempt: hook!.id });
    // One process, in the container the first worker started.
    expect(runs[0]!.output).toBe(`started in ${hook!.id.slice(0, 12)}\nfinished\n`);
    const created = await createdSince(since, name);
    expect(created.filter((n) => n.endsWith("-pre-deploy"))).toEqual([hook!.name]);
    expect(created).toHaveLength(2); // the hook container and the service container
    expect((await s.containers(name)).map((c) => c.labels[Labels.role])).toEqual(["service"]);
  });
});
