import { describe, expect, it } from "vitest";
import { REDACTED, noRedaction, redactError, redactor } from "./redact";

describe("redactor", () => {
  it("replaces every occurrence, longer values first", () => {
    const r = redactor(["hunter22", "hunter22-extended"]);
    expect(r("a hunter22 b hunter22-extended c hunter22")).toBe(`a ${REDACTED} b ${REDACTED} c ${REDACTED}`);
  });

  it("ignores values shorter than 4 characters (they would shred the output)", () => {
    const r = redactor(["on", "abc", "abcd"]);
    expect(r("on abc abcd")).toBe(`on abc ${REDACTED}`);
    expect(redactor(["x", ""])).toBe(noRedaction);
  });

  it("hides a URL's password on its own as well, decoded and as written", () => {
    const r = redactor(["postgres://app:p%40ss-word@db:5432/app"]);
    expect(r("url postgres://app:p%40ss-word@db:5432/app")).toBe(`url ${REDACTED}`);
    expect(r("password is p@ss-word or p%40ss-word")).toBe(`password is ${REDACTED} or ${REDACTED}`);
  });

  it("treats regular-expression characters literally", () => {
    expect(redactor(["a.b*c$"])("xa.b*c$y aXbbc")).toBe(`x${REDACTED}y aXbbc`);
  });

  it("redacts an error's message, stack and cause in place, keeping its class", () => {
    class Special extends Error {}
    const err = new Special("failed with s3cr3t", { cause: new Error("because s3cr3t") });
    const out = redactError(err, redactor(["s3cr3t"]));
    expect(out).toBe(err);
    expect(err).toBeInstanceOf(Special);
    expect(err.message).toBe(`failed with ${REDACTED}`);
    expect(err.stack).not.toContain("s3cr3t");
    expect((err.cause as Error).message).toBe(`because ${REDACTED}`);
  });
});
