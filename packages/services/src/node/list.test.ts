import type { Membership } from "@levelrail/spec/roles";
import { describe, expect, it } from "vitest";
import { listNodes } from "./list";

const reader = { nodes: async () => ({ engine: "single" as const, nodes: [] }) };
const actor = (memberships: Membership[], orgIds = memberships.map((m) => m.orgId)) => ({ actor: { orgIds, memberships } }) as unknown as Parameters<typeof listNodes>[0]["ctx"];

describe("listNodes", () => {
  it.each([
    ["an owner", [{ orgId: "o1", role: "owner", projectId: null }], true],
    ["an admin", [{ orgId: "o1", role: "admin", projectId: null }], true],
    ["a developer", [{ orgId: "o1", role: "developer", projectId: null }], true],
    ["a viewer", [{ orgId: "o1", role: "viewer", projectId: null }], true],
    ["an admin of one project only", [{ orgId: "o1", role: "admin", projectId: "p1" }], false],
    ["an admin of one project here, a viewer there", [{ orgId: "o1", role: "admin", projectId: "p1" }, { orgId: "o2", role: "viewer", projectId: null }], true],
    ["no membership at all", [], false],
  ] as const)("%s", async (_, memberships, ok) => {
    const call = listNodes({ ctx: actor([...memberships]), reader });
    if (ok) await expect(call).resolves.toEqual({ engine: "single", nodes: [] });
    else await expect(call).rejects.toMatchObject({ code: "forbidden", message: expect.stringContaining("viewer role") });
  });

  it("a membership that outlived its removal (not among the actor's organizations) grants nothing", async () => {
    await expect(listNodes({ ctx: actor([{ orgId: "o1", role: "owner", projectId: null }], []), reader })).rejects.toMatchObject({ code: "forbidden" });
  });

  it("an installation administrator reads them whatever their memberships", async () => {
    const ctx = { actor: { orgIds: [], memberships: [], installationAdmin: true } } as unknown as Parameters<typeof listNodes>[0]["ctx"];
    await expect(listNodes({ ctx, reader })).resolves.toEqual({ engine: "single", nodes: [] });
  });
});
