import { describe, expect, it } from "vitest";
import { z } from "zod";
import { LevelrailError } from "@levelrail/spec/errors";
import { serviceCreate } from "@levelrail/spec/service";
import { parse } from "./context";

const minimal = { name: "web", app: "shop", image: "nginx:1.27", port: 8080 };

/** The error `parse` throws for `input`, or a failure if it does not throw one. */
function refusal(input: unknown): LevelrailError {
  try {
    parse(serviceCreate, input);
  } catch (err) {
    if (err instanceof LevelrailError) return err;
    throw err;
  }
  throw new Error("parse accepted the input");
}

describe("parse", () => {
  it("returns the parsed value with defaults", () => {
    expect(parse(serviceCreate, minimal)).toMatchObject({ ...minimal, healthPath: "/", strategy: "blue-green" });
  });

  it("treats a missing body as an empty object", () => {
    expect(parse(z.object({ a: z.string().optional() }), undefined)).toEqual({});
    expect(refusal(undefined)).toMatchObject({ code: "invalid_input", field: "name", message: "name: is required" });
  });

  it.each([
    ["port 70000", { port: 70000 }, "port", "port: must be 1-65535"],
    ["port \"80\"", { port: "80" }, "port", "port: must be a number"],
    ["name Web", { name: "Web" }, "name", /^name: must be a DNS label/],
    ["strategy rolling", { strategy: "rolling" }, "strategy", "strategy: must be blue-green or recreate"],
    ["image with ;", { image: "nginx;id" }, "image", /^image: must be an image reference/],
    ["env value with NUL", { env: { A: "a\0b" } }, "env.A", "env.A: must not contain NUL"],
    ["env value over 64 KiB", { env: { A: "x".repeat(64 * 1024 + 1) } }, "env.A", "env.A: must be at most 64 KiB"],
    ["hook argument with NUL", { hooks: { preDeploy: ["ok", "a\0"] } }, "hooks.preDeploy.1", "hooks.preDeploy.1: must not contain NUL"],
    ["databaseEnv key with a space", { databaseEnv: { "DB URL": { from: "db" } } }, "databaseEnv.DB URL", /^databaseEnv.DB URL: must start with a letter/],
  ])("names the wrong field: %s", (_what, extra, field, message) => {
    const err = refusal({ ...minimal, ...extra });
    expect(err.code).toBe("invalid_input");
    expect(err.field).toBe(field);
    expect(err.message).toMatch(message);
  });

  it.each(["BAD KEY", "A=B", "1A", "A\nB"])("names an invalid env key %j with the key rule", (key) => {
    const err = refusal({ ...minimal, env: { OK: "1", [key]: "x" } });
    expect(err.code).toBe("invalid_input");
    expect(err.field).toBe(`env.${key}`);
    expect(err.message).toBe(`env.${key}: must start with a letter or '_' and contain only letters, digits and '_'`);
  });

  it("says 'is required' only for a missing value", () => {
    const { port: _port, ...noPort } = minimal;
    expect(refusal(noPort)).toMatchObject({ field: "port", message: "port: is required" });
    expect(refusal({ ...minimal, port: null })).toMatchObject({ field: "port", message: "port: must be a number" });
  });

  it("names an unknown field", () => {
    const err = refusal({ ...minimal, scale: 3 });
    expect(err).toMatchObject({ code: "invalid_input", field: "scale", message: "scale: unknown field scale" });
  });

  it("names a nested unknown field by its path", () => {
    const err = refusal({ ...minimal, hooks: { shell: "sh" } });
    expect(err).toMatchObject({ code: "invalid_input", field: "hooks.shell", message: "hooks.shell: unknown field shell" });
  });

  it("maps to HTTP 400 through the error's code, and is not retryable", () => {
    const err = refusal({ ...minimal, port: 0 });
    expect(err.retryable).toBe(false);
    expect(err).toBeInstanceOf(LevelrailError);
  });
});
