import { createHmac } from "node:crypto";

/**
 * A time-based one-time password (RFC 6238: HMAC-SHA1, 30-second steps, 6 digits) computed here,
 * apart from the library the panel verifies with, so tests check it against the standard.
 */
export function totp(secretBase32: string, at = Date.now(), step = 30, digits = 6): string {
  const key = base32Decode(secretBase32);
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 1000 / step)));
  const mac = createHmac("sha1", key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const code = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return code.toString().padStart(digits, "0");
}

/** The `secret` parameter of an otpauth:// URI. */
export function secretOf(otpauthUri: string): string {
  const secret = new URL(otpauthUri).searchParams.get("secret");
  if (!secret) throw new Error("the otpauth URI has no secret");
  return secret;
}

function base32Decode(text: string): Buffer {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const clean = text.toUpperCase().replace(/=+$/, "").replace(/\s+/g, "");
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of clean) {
    const i = alphabet.indexOf(ch);
    if (i < 0) throw new Error("not base32");
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}
