import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { payloadOf } from "@levelrail/spec/notifications";
import { signatureOf, webhookBody } from "./webhook";

const payload = payloadOf("test", { id: "o1", name: "acme" }, "hello", new Date("2026-01-02T03:04:05Z"));

describe("webhook bodies and signatures", () => {
  it("signs the exact body bytes: sha256=<hex HMAC-SHA256 keyed with the secret>", () => {
    const body = webhookBody("json", "d1", payload);
    expect(signatureOf("s3cret", body)).toBe(`sha256=${createHmac("sha256", "s3cret").update(body).digest("hex")}`);
    // The RFC 4231 test case 2 vector, to pin the scheme receivers implement.
    expect(signatureOf("Jefe", "what do ya want for nothing?")).toBe("sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  });
  it("a json body is the payload with the delivery id; a slack body only {text}", () => {
    expect(JSON.parse(webhookBody("json", "d1", payload).toString())).toEqual({ id: "d1", ...payload });
    expect(Object.keys(JSON.parse(webhookBody("slack", "d1", payload).toString()))).toEqual(["text"]);
  });
});
