import { describe, expect, it } from "vitest";
import { secretOf, totp } from "./totp";

// RFC 6238 appendix B: the SHA-1 seed "12345678901234567890" (base32 below), 8 digits.
const SEED = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

describe("totp (the tests' own RFC 6238)", () => {
  it.each([
    [59, "94287082"],
    [1111111109, "07081804"],
    [1234567890, "89005924"],
    [2000000000, "69279037"],
  ])("at %i s answers the RFC's %s", (seconds, code) => {
    expect(totp(SEED, seconds * 1000, 30, 8)).toBe(code);
  });

  it("six digits by default; the secret is read from an otpauth URI", () => {
    expect(totp(SEED, 59_000)).toBe("287082");
    expect(secretOf("otpauth://totp/Levelrail:a%40b?secret=ABC234&issuer=Levelrail")).toBe("ABC234");
  });
});
