import { describe, expect, it } from "vitest";
import { envKeyProblem, envValueProblem, nameProblem } from "./checks";
import { envKey, envValue, resourceName } from "./rules";

/** The zod schema's first message, or undefined when it accepts. */
const zodProblem = (r: { success: boolean; error?: { issues: { message: string }[] } }) => (r.success ? undefined : r.error?.issues[0]?.message);

describe("zod-free checks say what the API's schemas say", () => {
  it.each(["web", "a-1", "Web", "1web", "", "a".repeat(63), "a".repeat(64), "web_1"])("name %j", (name) => {
    expect(nameProblem(name)).toBe(zodProblem(resourceName.safeParse(name)));
  });
  it.each(["PATH", "_x", "A1_B", "1A", "A-B", "", "É"])("env key %j", (key) => {
    expect(envKeyProblem(key)).toBe(zodProblem(envKey.safeParse(key)));
  });
  it.each(["", "plain", "nul\0in", "x".repeat(64 * 1024), "x".repeat(64 * 1024 + 1), "é".repeat(32 * 1024 + 1), "\ud800"])("env value #%#", (value) => {
    expect(envValueProblem(value)).toBe(zodProblem(envValue.safeParse(value)));
  });
});
