import { describe, expect, it } from "vitest";
import { cliSource, fieldNames, sourceOf, workerSource } from "./record";
import { retentionCutoff } from "./retention";

describe("audit records", () => {
  it("names the fields an input set, sorted, never their values", () => {
    expect(fieldNames({ port: 80, image: "x", domains: undefined })).toEqual(["image", "port"]);
    expect(fieldNames(null)).toEqual([]);
    expect(fieldNames(["a"])).toEqual([]);
  });

  it("defaults to the signed-in user, with no address", () => {
    const actor = { userId: "u1", email: "a@b.c", orgIds: [], memberships: [] };
    expect(sourceOf({ actor })).toEqual({ actor: { type: "user", id: "u1", name: "a@b.c" }, ip: null });
    const token = { actor: { type: "token" as const, id: "t1", name: "token ci" }, ip: "10.0.0.1" };
    expect(sourceOf({ actor, audit: token })).toBe(token);
  });

  it("names the CLI and the worker", () => {
    expect(cliSource().actor).toEqual({ type: "cli", id: null, name: "cli" });
    expect(cliSource({ id: "u1", email: "a@b.c" }).actor).toEqual({ type: "cli", id: "u1", name: "cli (a@b.c)" });
    expect(workerSource("h:1:r").actor).toEqual({ type: "worker", id: "h:1:r", name: "worker" });
  });

  it("cuts off `days` before now", () => {
    expect(retentionCutoff(365, new Date("2026-12-31T00:00:00Z")).toISOString()).toBe("2025-12-31T00:00:00.000Z");
  });
});
