import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "@levelrail/db/client";
import { build, buildLog } from "@levelrail/db/schema/git";
import { createApp } from "@levelrail/services/app/app";
import { createService } from "@levelrail/services/service/write";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg, testKit } from "@levelrail/testkit/seed";
import { waitFor } from "@levelrail/testkit/wait";
import { buildLogStream } from "./build-log";
import { StreamSlots } from "./caps";
import { readEvents } from "./testing";

/**
 * `GET …/builds/{id}?follow=true` on PostgreSQL: the lines so far, each new one as the worker writes
 * it, then `end` once the build has finished; another organization's caller gets a 404.
 */
let database: Awaited<ReturnType<typeof freshDatabase>>;
let conn: ReturnType<typeof createDb>;
let ctx: Awaited<ReturnType<typeof seedOrg>>;
let buildId: string;
const wide = () => ({ slots: new StreamSlots({ perUser: 9, total: 9, retryAfterSeconds: 5 }) });

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "buildlog");
  conn = createDb(database.url);
  const kit = testKit();
  ctx = await seedOrg(conn.db, "buildlog", kit);
  await createApp({ ctx, envId: ctx.envId, input: { name: "shop" } });
  const s = await createService({ ctx, envId: ctx.envId, input: { name: "web", app: "shop", image: "levelrail-test/web:v1", port: 8080, healthPath: "/healthz" } });
  const [b] = await conn.db.insert(build).values({ orgId: ctx.orgId, serviceId: s.id, ref: "main", trigger: "manual", createdBy: "test", status: "running" }).returning();
  buildId = b!.id;
  await conn.db.insert(buildLog).values([1, 2].map((seq) => ({ buildId, seq, line: `#1 line ${seq}` })));
});

afterAll(async () => {
  await conn?.sql.end({ timeout: 5 });
  await database?.drop();
});

describe("a build's log followed", () => {
  it("streams the lines so far, then new ones live, then ends when the build has finished", async () => {
    const res = await buildLogStream({ ctx, envId: ctx.envId, name: "web", id: buildId, req: new Request("http://panel.test/x?follow=true"), caps: wide() });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = readEvents(res);
    await events.until((e) => e.filter((x) => x.event === "line").length === 2, 10_000);
    await conn.db.insert(buildLog).values({ buildId, seq: 3, line: "#2 \u001b[31mred\u001b[0m" });
    await events.until((e) => e.some((x) => x.data.line === "#2 \u001b[31mred\u001b[0m"), 10_000);
    await conn.db.update(build).set({ status: "succeeded", finishedAt: new Date() }).where(eq(build.id, buildId));
    const all = await events.until((e) => e.some((x) => x.event === "end"), 10_000);
    expect(all.filter((x) => x.event === "line").map((x) => x.data.line)).toEqual(["#1 line 1", "#1 line 2", "#2 \u001b[31mred\u001b[0m"]);
  });

  it("is a 404 for another organization's caller", async () => {
    const other = await seedOrg(conn.db, "buildlog-other");
    const caps = wide();
    await expect(buildLogStream({ ctx: other, envId: ctx.envId, name: "web", id: buildId, req: new Request("http://panel.test/x?follow=true"), caps })).rejects.toMatchObject({ code: "not_found" });
    expect(caps.slots.open()).toBe(0);
  });

  it("takes a live stream's slot like the container logs: past the caller's limit a 429 naming follow; a closed stream gives it back (issue 42, finding 12)", async () => {
    const caps = { slots: new StreamSlots({ perUser: 1, total: 5, retryAfterSeconds: 7 }) };
    const follow = (signal?: AbortSignal) => buildLogStream({ ctx, envId: ctx.envId, name: "web", id: buildId, req: new Request("http://panel.test/x?follow=true", signal ? { signal } : {}), caps });
    const first = new AbortController();
    await follow(first.signal);
    expect(caps.slots.open(ctx.actor.userId)).toBe(1);
    await expect(follow()).rejects.toMatchObject({ code: "too_many", field: "follow", retryAfterSeconds: 7 });
    first.abort();
    await waitFor("the closed stream's slot", async () => (caps.slots.open() === 0 ? true : undefined), { timeoutMs: 5000 });
    const again = new AbortController();
    await follow(again.signal);
    expect(caps.slots.open()).toBe(1);
    again.abort();
    await waitFor("every slot back", async () => (caps.slots.open() === 0 ? true : undefined), { timeoutMs: 5000 });
  });
});
