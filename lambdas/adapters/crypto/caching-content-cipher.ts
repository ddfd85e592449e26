import { createHash } from 'node:crypto';
import type { ContentCipher, EncryptionContext } from '../../kernel/crypto/content-cipher.port.ts';

/**
 * Remembers recent payloads, keyed by a digest of the exact ciphertext and the exact encryption context: a
 * record read again (a list re-read, a get after a list), or read right after this process wrote it, is not
 * decrypted again, and in AWS costs no second KMS call. A ciphertext presented under any other context, or
 * altered in any byte, misses the cache and meets the real decryption, which refuses it. Bounded: least
 * recently used entries go.
 */
export class CachingContentCipher implements ContentCipher {
  readonly #inner: ContentCipher;
  readonly #capacity: number;
  readonly #plaintexts = new Map<string, Uint8Array>();

  constructor(options: { inner: ContentCipher; capacity?: number }) {
    this.#inner = options.inner;
    this.#capacity = options.capacity ?? 5000;
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
      this.#plaintexts.set(key, cached);
      return Uint8Array.from(cached);
    }
    const plaintext = await this.#inner.decrypt(ciphertext, expected);
    this.#remember(key, plaintext);
    return plaintext;
  }

  /** A copy is kept, so a caller that changes the bytes it was given cannot change what the cache answers. */
  #remember(key: string, plaintext: Uint8Array): void {
    this.#plaintexts.set(key, Uint8Array.from(plaintext));
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
