// No list route answers an unbounded number of rows (docs/api.md#paging-and-bounded-lists): an unpaged list stops at
// MAX_LIST_ROWS and says how to narrow it, with a 400 naming `limit`.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { app } from "@levelrail/db/schema/services";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";
import { MAX_LIST_ROWS } from "../context";
import { listServices, listServicesPage } from "../service/view";
import { createService } from "../service/write";
import { listApps } from "./app";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let a: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "list_bound");
  ({ db, sql } = createDb(database.url));
  a = await seedOrg(db, "bound");
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

describe("unpaged lists have a maximum", () => {
  it(`answers ${MAX_LIST_ROWS} apps, and one more is a 400 naming limit instead of an unbounded answer`, async () => {
    const names = Array.from({ length: MAX_LIST_ROWS }, (_, i) => `app-${String(i).padStart(4, "0")}`);
    // Rows straight in: a thousand createApp calls would only slow the test down.
    await db.insert(app).values(names.map((name) => ({ orgId: a.orgId, environmentId: a.envId, name })));
    const all = await listApps({ ctx: a, envId: a.envId });
    expect(all.length).toBe(MAX_LIST_ROWS);
    expect(all[0]!.name).toBe("app-0000");

    await db.insert(app).values({ orgId: a.orgId, environmentId: a.envId, name: "one-more" });
    const err = await listApps({ ctx: a, envId: a.envId }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: "invalid_input", field: "limit" });
    expect((err as Error).message).toContain(`more than ${MAX_LIST_ROWS} apps`);
    await db.delete(app).where(eq(app.name, "one-more"));
  });

  it("a paged list never answers more than 200 a page", async () => {
    await createService({ ctx: a, envId: a.envId, input: { name: "web", app: "app-0000", image: "registry.example.com/x:1", port: 80 } });
    await expect(listServicesPage({ ctx: a, input: { limit: "201" } })).rejects.toMatchObject({ code: "invalid_input", field: "limit" });
    expect((await listServices({ ctx: a })).map((s) => s.name)).toEqual(["web"]);
  });
});
