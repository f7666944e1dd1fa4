import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";

/** SHA-256 hex; API keys are stored only as this hash. */
export function sha256Hex(value: string | Uint8Array): string {
  return createHash("sha256").update(value).digest("hex");
}

/** Constant-time equality for secrets of any length (hashing first equalises the lengths). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash("sha256").update(a).digest(), createHash("sha256").update(b).digest());
}

export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString("base64url");
}

/**
 * AES-256-GCM for secrets at rest (provider tokens, webhook secrets). Format: `v1.<iv>.<tag>.<ciphertext>`
 * in base64url, so a value is self-describing and a future key rotation can add `v2`.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(base64Key: string) {
    this.#key = Buffer.from(base64Key, "base64");
    if (this.#key.length !== 32) throw new Error("encryption key must be 32 bytes");
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(".");
  }

  /**
   * A key for another purpose (e.g. signing upload URLs), derived with HKDF-SHA256 and bound to `purpose`:
   * one configured secret serves several uses, while the encryption key itself never leaves the box and a
   * derived key reveals nothing about it or about the keys of other purposes.
   */
  deriveKey(purpose: string, bytes = 32): Buffer {
    return Buffer.from(hkdfSync("sha256", this.#key, Buffer.alloc(0), purpose, bytes));
  }

  /** Whether `value` has the form `seal` writes (it may still fail to open under another key). */
  isSealed(value: string): boolean {
    return parseSealed(value) !== null;
  }

  open(sealed: string): string {
    const parts = parseSealed(sealed);
    if (!parts) throw new Error("unreadable sealed secret");
    const { iv, tag, body } = parts;
    const decipher = createDecipheriv("aes-256-gcm", this.#key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  }
}

function parseSealed(value: string): { iv: string; tag: string; body: string } | null {
  const [version, iv, tag, body, extra] = value.split(".");
  return version === "v1" && iv && tag && body !== undefined && extra === undefined ? { iv, tag, body } : null;
}

export function generateEncryptionKey(): string {
  return randomBytes(32).toString("base64");
}
