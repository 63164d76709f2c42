import { FakeEngine } from "@levelrail/docker/fake";
import { describe, expect, it } from "vitest";
import { connectionUrl, dbnameConninfo, isSnapshotId, postgresEngine, redact } from "./postgres";
import { parseInventory } from "./postgres-inventory";

describe("connectionUrl", () => {
  it("percent-encodes user, password and database, so any character survives a URL parser", () => {
    const url = connectionUrl({ user: "shop@x", password: "p:/@?#%' !*()", database: "shop db" }, "shop-db");
    expect(url).toBe("postgres://shop%40x:p%3A%2F%40%3F%23%25%27%20%21%2A%28%29@shop-db:5432/shop%20db");
    const parsed = new URL(url);
    expect([decodeURIComponent(parsed.username), decodeURIComponent(parsed.password), decodeURIComponent(parsed.pathname.slice(1))]).toEqual([
      "shop@x",
      "p:/@?#%' !*()",
      "shop db",
    ]);
    expect(parsed.host).toBe("shop-db:5432");
  });

  it("leaves plain names as they are", () => {
    expect(connectionUrl({ user: "shop", password: "s3cret", database: "shop-db" }, "db.internal")).toBe("postgres://shop:s3cret@db.internal:5432/shop-db");
  });
});

describe("the engine's fixed parts", () => {
  const engine = postgresEngine(new FakeEngine());
  it("follows the official image: env, port, data path (PGDATA pinned for 18+), image", () => {
    expect(engine.containerEnv({ user: "u", password: "p w", database: "d" })).toEqual([
      "POSTGRES_USER=u",
      "POSTGRES_PASSWORD=p w",
      "POSTGRES_DB=d",
      "PGDATA=/var/lib/postgresql/data",
    ]);
    expect([engine.engine, engine.port, engine.dataPath, engine.defaultImage("17")]).toEqual(["postgres", 5432, "/var/lib/postgresql/data", "postgres:17"]);
  });

  it("refuses to pass on a snapshot id of the wrong shape, before any exec", async () => {
    await expect(engine.dump("c", { user: "u", password: "p", database: "d" }, "1; DROP TABLE x")).rejects.toThrow("not a snapshot id");
  });
});

describe("snapshot ids, conninfo quoting, redaction", () => {
  it.each([
    ["00000003-00000003-1", true],
    ["0000000A-0000BEEF-12", true],
    ["000003A1-1", true],
    ["00000003-0000000G-1", false],
    ["00000003-00000003-1; SELECT 1", false],
    ["00000003-00000003-1\n", false],
    ["0000000a-00000003-1", false],
    ["", false],
  ])("%j is a snapshot id: %s", (id, ok) => {
    expect(isSnapshotId(id)).toBe(ok);
  });

  it("quotes the database name so libpq never reads it as a connection string", () => {
    expect(dbnameConninfo("shop-db")).toBe("dbname='shop-db'");
    expect(dbnameConninfo("host=evil dbname=x")).toBe("dbname='host=evil dbname=x'");
    expect(dbnameConninfo(`it's a \\ name`)).toBe(`dbname='it\\'s a \\\\ name'`);
  });

  it("redacts the password, as is and percent-encoded", () => {
    expect(redact("FATAL: password p@ss w0rd! and p%40ss%20w0rd%21", "p@ss w0rd!")).toBe("FATAL: password *** and ***");
    expect(redact("nothing here", "")).toBe("nothing here");
  });
});

describe("parseInventory", () => {
  const odd = `"My Schema"."odd ""name""\nwith a newline"`;
  const answer = JSON.stringify({
    tables: { "public.item": 1000, [odd]: 7, "public.empty": 0 },
    schema: ["index public.item CREATE INDEX item_name ON public.item USING btree (name)", `column ${odd} "we""ird col" text`, "column public.item id integer not null"],
  });

  it("reads the one JSON document the query prints: tables in name order, schema lines sorted", () => {
    const inv = parseInventory([answer]);
    expect(Object.keys(inv.tables)).toEqual([odd, "public.empty", "public.item"]);
    expect(inv.tables[odd]).toBe(7);
    expect(inv.schema).toEqual([`column ${odd} "we""ird col" text`, "column public.item id integer not null", "index public.item CREATE INDEX item_name ON public.item USING btree (name)"]);
  });

  it("reads it across lines too (JSON escapes newlines inside names, so a line break is only whitespace)", () => {
    const pretty = JSON.stringify(JSON.parse(answer), null, 2).split("\n");
    expect(parseInventory(pretty)).toEqual(parseInventory([answer]));
  });

  it("an empty database", () => {
    expect(parseInventory(['{"tables": {}, "schema": []}'])).toEqual({ tables: {}, schema: [] });
  });

  it.each([
    [["not json"], "not JSON"],
    [['{"tables": {"t": -1}, "schema": []}'], "unexpected shape"],
    [['{"tables": {"t": 1.5}, "schema": []}'], "unexpected shape"],
    [['{"tables": {}}'], "unexpected shape"],
    [[], "not JSON"],
  ])("refuses %j", (lines, message) => {
    expect(() => parseInventory(lines)).toThrow(message);
  });
});
