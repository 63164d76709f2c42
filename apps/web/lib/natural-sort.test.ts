import { describe, expect, it } from "vitest";
import { NO_FILTER, byName, filterParams, filtering, naturalCompare } from "./natural-sort";

describe("naturalCompare", () => {
  it("sorts numbers inside names by value", () => {
    expect(["s100", "s12", "s2", "s1", "web"].sort(naturalCompare)).toEqual(["s1", "s2", "s12", "s100", "web"]);
  });
  it("puts s12 before s100 and keeps a total order", () => {
    expect(naturalCompare("s12", "s100")).toBeLessThan(0);
    expect(naturalCompare("api-2", "api-10")).toBeLessThan(0);
    expect(naturalCompare("a", "A")).not.toBe(0);
    expect(naturalCompare("web", "web")).toBe(0);
  });
  it("sorts things by a name", () => {
    expect([{ n: "b10" }, { n: "b9" }].sort(byName((x) => x.n)).map((x) => x.n)).toEqual(["b9", "b10"]);
  });
});

describe("the fleet filter", () => {
  it("sends only what is set, the name trimmed and in lower case", () => {
    expect(filterParams(NO_FILTER)).toEqual({});
    expect(filterParams({ name: "  Web ", phase: "" })).toEqual({ name: "web" });
    expect(filterParams({ name: "", phase: "failed" })).toEqual({ phase: "failed" });
  });
  it("knows when it narrows", () => {
    expect(filtering(NO_FILTER)).toBe(false);
    expect(filtering({ name: " ", phase: "" })).toBe(false);
    expect(filtering({ name: "", phase: "running" })).toBe(true);
  });
});
