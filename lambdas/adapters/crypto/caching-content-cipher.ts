import { createHash } from 'node:crypto';
import type { ContentCipher, EncryptionContext } from '../../kernel/crypto/content-cipher.port.ts';

/**
 * Remembers recent payloads, keyed by a digest of the exact ciphertext and the exact encryption context: a
 * record read again (a list re-read, a get after a list), or read right after this process wrote it, is not
 * decrypted again (no data key unwrapped again; for a record written before branch keys, no second KMS call).
 * A ciphertext presented under any other context, or altered in any byte, misses the cache and meets the real
 * decryption, which refuses it. Bounded in size (least recently used entries go) and in age: an entry is
 * dropped once it is older than the branch key cache period, so a disabled key or a destroyed branch key
 * (crypto-shredding) stops this process answering from memory within the same bound as the keyring's cache.
 */
export class CachingContentCipher implements ContentCipher {
  readonly #inner: ContentCipher;
  readonly #capacity: number;
  readonly #maxAgeMilliseconds: number;
  readonly #now: () => number;
  readonly #plaintexts = new Map<string, { plaintext: Uint8Array; storedAt: number }>();

  constructor(options: {
    inner: ContentCipher;
    /** No longer than the keyring's own cache period (`HierarchicalKeys.cacheSeconds`). */
    maxAgeSeconds: number;
    capacity?: number;
    /** Monotonic milliseconds. @default performance.now */
    now?: () => number;
  }) {
    if (!(options.maxAgeSeconds > 0)) throw new RangeError('The plaintext cache needs a positive maximum age');
    this.#inner = options.inner;
    this.#capacity = options.capacity ?? 5000;
    this.#maxAgeMilliseconds = options.maxAgeSeconds * 1000;
    this.#now = options.now ?? (() => performance.now());
  }

  async encrypt(plaintext: Uint8Array, context: EncryptionContext): Promise<Uint8Array> {
    const ciphertext = await this.#inner.encrypt(plaintext, context);
    // This ciphertext opens to exactly this plaintext under exactly this context: we just made it so. A
    // belief revised and then read (the applied view) is the common case.
    this.#remember(cacheKeyOf(ciphertext, context), plaintext);
    return ciphertext;
  }

  async decrypt(ciphertext: Uint8Array, expected: EncryptionContext): Promise<Uint8Array> {
    const key = cacheKeyOf(ciphertext, expected);
    const cached = this.#plaintexts.get(key);
    if (cached) {
      this.#plaintexts.delete(key);
      // Kept from when it was stored, not refreshed by use: a hot record meets the keyring again in time.
      if (this.#now() - cached.storedAt < this.#maxAgeMilliseconds) {
        this.#plaintexts.set(key, cached);
        return Uint8Array.from(cached.plaintext);
      }
    }
    const plaintext = await this.#inner.decrypt(ciphertext, expected);
    this.#remember(key, plaintext);
    return plaintext;
  }

  /** A copy is kept, so a caller that changes the bytes it was given cannot change what the cache answers. */
  #remember(key: string, plaintext: Uint8Array): void {
    this.#plaintexts.set(key, { plaintext: Uint8Array.from(plaintext), storedAt: this.#now() });
    if (this.#plaintexts.size > this.#capacity) {
      const oldest = this.#plaintexts.keys().next().value;
      if (oldest !== undefined) this.#plaintexts.delete(oldest);
    }
  }
}

const cacheKeyOf = (ciphertext: Uint8Array, context: EncryptionContext): string =>
  createHash('sha256')
    .update(JSON.stringify([context.tenant, context.namespace, context.recordId]))
    .update(ciphertext)
    .digest('base64url');
