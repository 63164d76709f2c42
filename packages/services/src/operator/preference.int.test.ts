import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";
import { createProject } from "../project/create";
import { createEnvironment, deleteEnvironment } from "../project/environment";
import { getCurrentEnvironment, setCurrentEnvironment } from "./preference";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let a: Awaited<ReturnType<typeof seedOrg>>;
let b: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "operator_preference");
  ({ db, sql } = createDb(database.url));
  a = await seedOrg(db, "prefa");
  b = await seedOrg(db, "prefb");
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

const codeOf = (p: Promise<unknown>) => p.then(() => "ok", (err: { code?: string; field?: string }) => `${err.code}${err.field ? `:${err.field}` : ""}`);

describe("the operator's current environment", () => {
  it("falls back to the first project's production until one is chosen, then remembers the choice", async () => {
    expect(await getCurrentEnvironment({ ctx: a })).toMatchObject({ chosen: false, environment: { id: a.envId, name: "production" }, project: { id: a.projectId } });
    const staging = await createEnvironment({ ctx: a, projectId: a.projectId, input: { name: "staging" } });
    expect(await setCurrentEnvironment({ ctx: a, input: { environmentId: staging.id } })).toMatchObject({ chosen: true, environment: { id: staging.id } });
    expect(await getCurrentEnvironment({ ctx: a })).toMatchObject({ chosen: true, environment: { id: staging.id, name: "staging" } });
    // Another project's environment replaces it (one choice per operator).
    const other = await createProject({ ctx: a, input: { name: "other" } });
    const qa = await createEnvironment({ ctx: a, projectId: other.id, input: { name: "qa" } });
    await setCurrentEnvironment({ ctx: a, input: { environmentId: qa.id } });
    expect(await getCurrentEnvironment({ ctx: a })).toMatchObject({ environment: { id: qa.id }, project: { id: other.id } });
    // Deleting the chosen environment clears the choice: back to the fallback.
    await deleteEnvironment({ ctx: a, envId: qa.id });
    expect(await getCurrentEnvironment({ ctx: a })).toMatchObject({ chosen: false, environment: { id: a.envId } });
  });

  it("refuses another organization's environment exactly like an unknown one, and an id that is none with a 400", async () => {
    expect(await codeOf(setCurrentEnvironment({ ctx: a, input: { environmentId: b.envId } }))).toBe("not_found");
    expect(await codeOf(setCurrentEnvironment({ ctx: a, input: { environmentId: "00000000-0000-4000-8000-000000000000" } }))).toBe("not_found");
    expect(await codeOf(setCurrentEnvironment({ ctx: a, input: { environmentId: "production" } }))).toBe("invalid_input:environmentId");
    expect(await codeOf(setCurrentEnvironment({ ctx: a, input: {} }))).toBe("invalid_input:environmentId");
    // Neither attempt changed anything for either operator.
    expect(await getCurrentEnvironment({ ctx: a })).toMatchObject({ chosen: false, environment: { id: a.envId } });
    expect(await getCurrentEnvironment({ ctx: b })).toMatchObject({ chosen: false, environment: { id: b.envId } });
  });
});
