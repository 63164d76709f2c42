import { describe, expect, it } from "vitest";
import { backupScheduleInput, compareInventories, cronProblem, databaseInput, postgresUrl, restoreInput } from "./database";

describe("compareInventories", () => {
  const snap = { tables: { "public.a": 3, "public.b": 0 }, schema: ["column public.a id integer", "column public.b id integer"] };

  it("is empty for equal inventories", () => {
    expect(compareInventories(snap, structuredClone(snap))).toEqual([]);
  });

  it("names every difference: counts, missing and extra tables, schema lines either way", () => {
    const restored = { tables: { "public.a": 2, "public.c": 1 }, schema: ["column public.a id bigint", "column public.b id integer"] };
    expect(compareInventories(snap, restored)).toEqual([
      "table public.a: 3 rows dumped, 2 restored",
      "table public.b is missing from the restore",
      "table public.c was not in the dump",
      "schema: missing column public.a id integer",
      "schema: unexpected column public.a id bigint",
    ]);
  });

  it("caps the list", () => {
    const many = { tables: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`public.t${i}`, 1])), schema: [] };
    const out = compareInventories(many, { tables: {}, schema: [] }, 5);
    expect(out).toHaveLength(6);
    expect(out[5]).toBe("… and 25 more");
  });
});

describe("cron expressions", () => {
  it.each(["0 3 * * *", "*/15 * * * *", "0 0 1 * *", "30 2 * * 1-5"])("accepts %s", (cron) => expect(cronProblem(cron)).toBeNull());
  it.each([
    ["* * * * * *", /5 fields/],
    ["0 3 * *", /5 fields/],
    ["61 * * * *", /not a cron expression/],
    ["0 25 * * *", /not a cron expression/],
    ["every day", /5 fields|not a cron/],
  ])("refuses %s", (cron, why) => expect(cronProblem(cron)).toMatch(why));
});

describe("inputs", () => {
  it("defaults engine and version, and refuses versions outside 12–19", () => {
    expect(databaseInput.parse({ name: "shop-db" })).toMatchObject({ engine: "postgres", version: "18" });
    for (const version of ["11", "20", "17.1", "x"]) expect(databaseInput.safeParse({ name: "a", version }).success).toBe(false);
  });

  it("refuses an image id or an id prefix as the image (it would run another organization's cached image)", () => {
    for (const image of ["sha256:0123456789ab", "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "0123456789ab", "f"]) {
      const r = databaseInput.safeParse({ name: "shop-db", image });
      expect(r.success, image).toBe(false);
      expect(r.error?.issues[0]?.path).toEqual(["image"]);
    }
    expect(databaseInput.safeParse({ name: "shop-db", image: "registry.a.com/acme/pg:17" }).success).toBe(true);
  });

  it("bounds keep to 1–100 and needs a target id", () => {
    const ok = { cron: "0 3 * * *", targetId: "00000000-0000-4000-8000-000000000001", keep: 7 };
    expect(backupScheduleInput.safeParse(ok).success).toBe(true);
    for (const keep of [0, 101, 1.5]) expect(backupScheduleInput.safeParse({ ...ok, keep }).success).toBe(false);
    expect(backupScheduleInput.safeParse({ ...ok, targetId: "t" }).success).toBe(false);
  });

  it("restores either into a new database or in place, not both", () => {
    const backupId = "00000000-0000-4000-8000-000000000001";
    expect(restoreInput.safeParse({ backupId, into: "copy" }).success).toBe(true);
    expect(restoreInput.safeParse({ backupId, replace: true }).success).toBe(true);
    expect(restoreInput.safeParse({ backupId, into: "copy", replace: true }).success).toBe(false);
    expect(restoreInput.safeParse({ backupId }).success).toBe(false);
  });
});

describe("postgresUrl", () => {
  it("percent-encodes user, password and database", () => {
    expect(postgresUrl({ user: "app", password: "p@ss/w:rd", database: "shop-db" }, "shop-db")).toBe("postgres://app:p%40ss%2Fw%3Ard@shop-db:5432/shop-db");
  });
});
