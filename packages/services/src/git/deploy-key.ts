import { generateKeyPairSync, randomBytes } from "node:crypto";

/**
 * An ed25519 deploy key in the formats OpenSSH reads: the private key as `-----BEGIN OPENSSH
 * PRIVATE KEY-----` (openssh-key-v1, unencrypted, as `ssh-keygen -t ed25519 -N ''` writes it; node
 * exports only PKCS#8, which older `ssh` builds refuse for ed25519) and the public key as an
 * authorized_keys line. Layout: OpenSSH's PROTOCOL.key.
 */
export interface DeployKey {
  /** `ssh-ed25519 AAAA… <comment>`: what the operator adds to the repository. */
  publicKey: string;
  /** The OpenSSH private key file's text; sealed at once, never shown. */
  privateKey: string;
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
/** An SSH wire `string`: its length, then its bytes. */
const str = (b: Buffer | string) => {
  const buf = typeof b === "string" ? Buffer.from(b) : b;
  return Buffer.concat([u32(buf.length), buf]);
};

export function generateDeployKey(comment: string): DeployKey {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const pub = Buffer.from(publicKey.export({ format: "jwk" }).x ?? "", "base64url");
  const seed = Buffer.from(privateKey.export({ format: "jwk" }).d ?? "", "base64url");
  if (pub.length !== 32 || seed.length !== 32) throw new Error("ed25519 key of an unexpected size");
  const pubBlob = Buffer.concat([str("ssh-ed25519"), str(pub)]);
  const check = randomBytes(4);
  let priv = Buffer.concat([check, check, str("ssh-ed25519"), str(pub), str(Buffer.concat([seed, pub])), str(comment)]);
  // Padded with 1, 2, 3, … to the cipher's block size (8 for "none").
  const pad = (8 - (priv.length % 8)) % 8;
  priv = Buffer.concat([priv, Buffer.from(Array.from({ length: pad }, (_, i) => i + 1))]);
  const body = Buffer.concat([Buffer.from("openssh-key-v1\0"), str("none"), str("none"), str(""), u32(1), str(pubBlob), str(priv)]);
  const lines = body.toString("base64").match(/.{1,70}/g) ?? [];
  return {
    publicKey: `ssh-ed25519 ${pubBlob.toString("base64")} ${comment}`,
    privateKey: `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join("\n")}\n-----END OPENSSH PRIVATE KEY-----\n`,
  };
}
