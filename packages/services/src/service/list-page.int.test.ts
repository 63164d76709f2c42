import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { LevelrailError } from "@levelrail/spec/errors";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";
import { createApp } from "../app/app";
import { listServices, listServicesPage } from "./view";
import { createService } from "./write";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let a: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "services_page");
  ({ db, sql } = createDb(database.url));
  a = await seedOrg(db, "pagea");
  const b = await seedOrg(db, "pageb");
  await createApp({ ctx: a, envId: a.envId, input: { name: "shop" } });
  await createApp({ ctx: a, envId: a.envId, input: { name: "blog" } });
  await createApp({ ctx: b, envId: b.envId, input: { name: "other" } });
  for (const [name, appName] of [["web", "shop"], ["api", "shop"], ["site", "blog"], ["worker", "shop"], ["admin", "blog"]] as const) {
    await createService({ ctx: a, envId: a.envId, input: { name, app: appName, image: "registry.example.com/shop:1.0", port: 8080 } });
  }
  await createService({ ctx: b, envId: b.envId, input: { name: "theirs", app: "other", image: "registry.example.com/other:1.0", port: 8080 } });
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

/** Every page of org A's services, following nextCursor. */
async function walk(input: Record<string, unknown>) {
  const pages: { names: string[]; total: number }[] = [];
  let cursor: string | null | undefined;
  do {
    const page = await listServicesPage({ ctx: a, input: { ...input, ...(cursor ? { cursor } : {}) } });
    pages.push({ names: page.services.map((s) => s.name), total: page.total });
    cursor = page.nextCursor;
  } while (cursor);
  return pages;
}

describe("listServicesPage", () => {
  it("pages the caller's services newest first, each once, with the total", async () => {
    expect(await walk({ limit: "2" })).toEqual([
      { names: ["admin", "worker"], total: 5 },
      { names: ["site", "api"], total: 5 },
      { names: ["web"], total: 5 },
    ]);
  });

  it("answers the same items the unpaged list does", async () => {
    const [page, all] = await Promise.all([listServicesPage({ ctx: a, input: { limit: 50 } }), listServices({ ctx: a })]);
    expect(page.nextCursor).toBeNull();
    expect([...page.services].sort((x, y) => x.name.localeCompare(y.name))).toEqual([...all].sort((x, y) => x.name.localeCompare(y.name)));
  });

  it("filters by app", async () => {
    expect(await walk({ app: "blog", limit: 1 })).toEqual([
      { names: ["admin"], total: 2 },
      { names: ["site"], total: 2 },
    ]);
  });

  it("filters by a part of the name (any case, % and _ taken literally) and by phase, the total too", async () => {
    expect(await walk({ name: "I", limit: 2 })).toEqual([
      { names: ["admin", "site"], total: 3 },
      { names: ["api"], total: 3 },
    ]);
    expect(await walk({ name: "%" })).toEqual([{ names: [], total: 0 }]);
    expect(await walk({ phase: "stopped", name: "w" })).toEqual([{ names: ["worker", "web"], total: 2 }]);
    expect(await walk({ phase: "running" })).toEqual([{ names: [], total: 0 }]);
  });

  it("refuses a cursor that is not one it answered and a limit out of range, naming the field", async () => {
    for (const [input, field] of [
      [{ cursor: "not-an-id" }, "cursor"],
      [{ limit: "0" }, "limit"],
      [{ limit: "201" }, "limit"],
      [{ limt: "5" }, "limt"],
      [{ phase: "sleeping" }, "phase"],
    ] as const) {
      const err = await listServicesPage({ ctx: a, input }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(LevelrailError);
      expect((err as LevelrailError).field).toBe(field);
    }
  });
});
