/**
 * Encryption at rest: AES-256-GCM with a random 96-bit nonce per value. Every sealed value names
 * the key that sealed it, so values written before a key was configured stay readable (they carry
 * no envelope), and a key can be rotated: the current key seals, older keys only open.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { ConfigError } from "../errors.js";

/** Text envelope: `enc:v1:<keyId>:<base64 of nonce | ciphertext | tag>`. */
const TEXT_PREFIX = "enc:v1:";
/**
 * Bytes envelope: this prefix, the 8-byte key id, nonce, ciphertext, tag. Payloads are JSON text,
 * which never starts with a NUL byte, so a plaintext payload is never mistaken for a sealed one.
 */
const BYTES_PREFIX = Buffer.from("\0hlenc1", "latin1");
const NONCE = 12;
const TAG = 16;
const KEY_ID = 8;

/** Seals and opens values stored at rest; without a key it passes plaintext through. */
export class FieldCipher {
  private readonly keys = new Map<string, Buffer>();
  private readonly current: { id: string; key: Buffer } | null;

  /** `key` seals and opens; `oldKeys` only open (rotation). */
  constructor(key: Buffer | null, oldKeys: readonly Buffer[] = []) {
    for (const k of [...oldKeys, ...(key ? [key] : [])]) this.keys.set(keyId(k), k);
    this.current = key ? { id: keyId(key), key } : null;
  }

  /** Whether new values are sealed. */
  get enabled(): boolean {
    return this.current !== null;
  }

  /** The id of the key that seals new values, or null. */
  get currentKeyId(): string | null {
    return this.current?.id ?? null;
  }

  sealText(plain: string): string {
    if (!this.current) return plain;
    const sealed = seal(this.current.key, Buffer.from(plain, "utf8"));
    return `${TEXT_PREFIX}${this.current.id}:${sealed.toString("base64")}`;
  }

  openText(stored: string): string {
    if (!stored.startsWith(TEXT_PREFIX)) return stored;
    const id = stored.slice(TEXT_PREFIX.length, TEXT_PREFIX.length + KEY_ID);
    const body = Buffer.from(stored.slice(TEXT_PREFIX.length + KEY_ID + 1), "base64");
    return open(this.keyFor(id), id, body).toString("utf8");
  }

  sealBytes(plain: Buffer): Buffer {
    if (!this.current) return plain;
    const id = Buffer.from(this.current.id, "latin1");
    return Buffer.concat([BYTES_PREFIX, id, seal(this.current.key, plain)]);
  }

  openBytes(stored: Buffer): Buffer {
    if (!isSealedBytes(stored)) return stored;
    const at = BYTES_PREFIX.length;
    const id = stored.subarray(at, at + KEY_ID).toString("latin1");
    return open(this.keyFor(id), id, stored.subarray(at + KEY_ID));
  }

  /** Whether a stored value is already sealed with the current key (nothing to rotate). */
  isCurrent(stored: string | Buffer): boolean {
    const id = sealedKeyId(stored);
    return id === (this.current?.id ?? null);
  }

  /** Throws, as opening would, when a stored value is sealed with a key not configured. */
  assertOpenable(stored: string | Buffer): void {
    const id = sealedKeyId(stored);
    if (id !== null) this.keyFor(id);
  }

  private keyFor(id: string): Buffer {
    const key = this.keys.get(id);
    if (!key) {
      throw new ConfigError(
        `a stored value was encrypted with key ${id}, which is not configured: set it as HOOKLINE_ENCRYPTION_KEY or list it in HOOKLINE_ENCRYPTION_OLD_KEYS`,
      );
    }
    return key;
  }
}

/** The id of the key that sealed a stored value, or null for a plaintext one. */
export function sealedKeyId(stored: string | Buffer): string | null {
  if (typeof stored === "string") {
    return stored.startsWith(TEXT_PREFIX)
      ? stored.slice(TEXT_PREFIX.length, TEXT_PREFIX.length + KEY_ID)
      : null;
  }
  if (!isSealedBytes(stored)) return null;
  const at = BYTES_PREFIX.length;
  return stored.subarray(at, at + KEY_ID).toString("latin1");
}

/** A key's public id: not secret, derived from the key so a wrong key is told apart at once. */
export function keyId(key: Buffer): string {
  return createHash("sha256").update("hookline key id\0").update(key).digest("hex").slice(0, 8);
}

function isSealedBytes(b: Buffer): boolean {
  return b.length > BYTES_PREFIX.length && b.subarray(0, BYTES_PREFIX.length).equals(BYTES_PREFIX);
}

function seal(key: Buffer, plain: Buffer): Buffer {
  const nonce = randomBytes(NONCE);
  const c = createCipheriv("aes-256-gcm", key, nonce);
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([nonce, body, c.getAuthTag()]);
}

function open(key: Buffer, id: string, sealed: Buffer): Buffer {
  try {
    const d = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, NONCE));
    d.setAuthTag(sealed.subarray(sealed.length - TAG));
    return Buffer.concat([d.update(sealed.subarray(NONCE, sealed.length - TAG)), d.final()]);
  } catch (err) {
    // Never hand back garbage: a value that does not authenticate is an error.
    throw new ConfigError(`a stored value sealed with key ${id} does not decrypt (damaged?)`, {
      cause: err,
    });
  }
}

/**
 * Parses a 32-byte key given as 64 hex characters or base64; `name` is the setting, for the
 * error message.
 */
export function parseKey(raw: string, name: string): Buffer {
  const text = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, "hex") : fromBase64(text);
  if (key?.length !== 32) {
    throw new ConfigError(
      `${name} must be a 32-byte key as 64 hex characters or base64 (e.g. \`openssl rand -base64 32\`)`,
    );
  }
  return key;
}

function fromBase64(text: string): Buffer | null {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return null;
  return Buffer.from(text, text.includes("-") || text.includes("_") ? "base64url" : "base64");
}
