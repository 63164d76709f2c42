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

  // Each form a program may print a secret in: the value's own and its encodings.
  const PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7/x+y=\n-----END PRIVATE KEY-----\n";
  const QUOTED = 'p"a\\ss/wörd';
  it.each([
    ["as is", "s3cr3t-value", (v: string) => `x ${v} y`],
    ["base64", "s3cr3t-value", (v: string) => Buffer.from(v).toString("base64")],
    ["base64 inside a longer encoded text (basic auth)", "s3cr3t-value", (v: string) => `Basic ${Buffer.from(`admin:${v}`).toString("base64")}`],
    ["base64 at the third alignment", "s3cr3t-value", (v: string) => Buffer.from(`ab${v}cd`).toString("base64")],
    ["base64url", "s3cr3t?>value~~", (v: string) => Buffer.from(`a${v}`).toString("base64url")],
    ["JSON-escaped (a multi-line key on one line)", PEM, (v: string) => JSON.stringify({ key: v })],
    ["JSON-escaped with quotes, backslashes and non-ASCII", QUOTED, (v: string) => JSON.stringify({ pw: v })],
    ["JSON with escaped slashes (PHP)", QUOTED, (v: string) => JSON.stringify({ pw: v }).replace(/\//g, "\\/")],
    ["JSON, ASCII only (Python)", QUOTED, (v: string) => JSON.stringify(v).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)],
    ["CRLF line ends as the logs show them", "line-one\r\nline-two", (v: string) => v.replace(/\r\n/g, "\n")],
  ])("hides a secret printed %s", (_form, value, print) => {
    const out = redactor([value])(print(value));
    expect(out).toContain(REDACTED);
    for (const part of [value, Buffer.from(value).toString("base64").slice(2, 14), JSON.stringify(value).slice(1, -1)]) expect(out).not.toContain(part);
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
