import { describe, expect, it } from "vitest";
import { toAppView } from "./app/app";
import { toOrgView } from "./org/list";
import { toEnvironmentView, toProjectView } from "./project/list";

/** What the API sent before verbs returned views: the row as JSON (dates become ISO strings). */
const asSentBefore = (row: object): unknown => JSON.parse(JSON.stringify(row));

const at = new Date("2026-03-04T05:06:07.089Z");
const orgId = "5d0b8a52-3c1e-4b7a-9f0e-2a6c1d4e8b90";
const projectId = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0";

describe("verb views keep the API's JSON shape", () => {
  it.each([
    ["organization", toOrgView, { id: orgId, name: "acme", createdAt: at }],
    ["project", toProjectView, { id: projectId, orgId, name: "shop", createdAt: at }],
    ["environment", toEnvironmentView, { id: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", orgId, projectId, name: "production", createdAt: at }],
    ["app", toAppView, { id: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d", orgId, name: "web", createdAt: at }],
  ] as const)("%s", (_what, view, row) => {
    const v = (view as (r: typeof row) => object)(row);
    expect(v).toEqual(asSentBefore(row));
    expect(asSentBefore(v)).toEqual(v); // plain JSON already: nothing changes on the wire
    expect(v).toMatchObject({ createdAt: "2026-03-04T05:06:07.089Z" });
  });
});
