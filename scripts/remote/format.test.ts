import { describe, expect, it } from "vitest";
import { formatPlan, secretValues } from "./format";

describe("formatPlan", () => {
  it("prints one line per object and field, a secret without its value", () => {
    const lines = formatPlan({
      changes: [
        { action: "create", kind: "service", name: "blog", fields: [] },
        { action: "change", kind: "service", name: "web", fields: [{ field: "image", from: "a:1", to: "a:2" }, { field: "env", from: { A: "1" }, to: {} }] },
        { action: "create", kind: "secret", name: "web/API_KEY", fields: [{ field: "value" }] },
        { action: "delete", kind: "database", name: "old-db", fields: [] },
      ],
      left: [{ action: "delete", kind: "app", name: "legacy", fields: [] }],
      missingSecrets: [{ service: "web", key: "TOKEN" }],
      drift: [{ service: "web", declared: "a:2", running: "a:1" }],
    });
    expect(lines).toEqual([
      "+ service blog (create)",
      "~ service web",
      "    image: a:1 -> a:2",
      '    env: {"A":"1"} -> {}',
      "+ secret web/API_KEY (set; value not shown)",
      "- database old-db (delete)",
      "= app legacy is not in the file: kept (--prune deletes it)",
      "! secret web/TOKEN is named but has no value: give --secret TOKEN=@env:VAR (or PUT …/services/web/secrets/TOKEN)",
      "! drift: web runs a:1, declares a:2 (apply --deploy deploys it)",
    ]);
  });

  it("says when there is nothing to do", () => {
    expect(formatPlan({ changes: [], left: [], missingSecrets: [], drift: [] })).toEqual(["nothing to do: the environment matches the file"]);
  });
});

describe("secretValues", () => {
  it("reads KEY=@env:VAR from the environment; refuses a literal value without echoing it", () => {
    expect(secretValues(["API_KEY=@env:MY_KEY"], { MY_KEY: "v" })).toEqual({ API_KEY: "v" });
    expect(() => secretValues(["API_KEY=@env:NOPE"], {})).toThrow("NOPE is not set");
    expect(() => secretValues(["API_KEY=hunter2"], {})).toThrow(/^--secret API_KEY=…: give KEY=@env:VAR/);
    expect(() => secretValues(["API_KEY=hunter2"], {})).not.toThrow(/hunter2/);
  });
});
