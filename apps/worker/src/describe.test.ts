import { describe as group, expect, it } from "vitest";
import { describe } from "./describe";

group("describe (the worker's error log text)", () => {
  it("shows a failed query by its SQL only, never its parameters", () => {
    const err = Object.assign(new Error("Failed query: update x set message = $1\nparams: s3cr3t-value"), { query: "update x set message = $1", params: ["s3cr3t-value"] });
    expect(describe(err).includes("s3cr3t-value")).toBe(false);
    expect(describe(err)).toContain("failed query: update x set message = $1");
  });

  it("shows any other error by its message", () => {
    expect(describe(new Error("engine away"))).toBe("engine away");
    expect(describe("text")).toBe("text");
  });
});
