import { createHash } from 'node:crypto';
import type { ContentCipher, EncryptionContext } from '../../core/crypto/content-cipher.port.ts';

/**
 * Remembers recently decrypted payloads, keyed by a digest of the exact ciphertext and the exact expected
 * encryption context: a record read again (a list re-read, a get after a list) is not decrypted again, and
 * in AWS costs no second KMS call. A ciphertext presented under any other context, or altered in any byte,
 * misses the cache and meets the real decryption, which refuses it. Bounded: least recently used entries go.
 */
export class CachingContentCipher implements ContentCipher {
  readonly #inner: ContentCipher;
  readonly #capacity: number;
  readonly #plaintexts = new Map<string, Uint8Array>();

  constructor(options: { inner: ContentCipher; capacity?: number }) {
    this.#inner = options.inner;
    this.#capacity = options.capacity ?? 5000;
  }

  encrypt(plaintext: Uint8Array, context: EncryptionContext): Promise<Uint8Array> {
    return this.#inner.encrypt(plaintext, context);
  }

  async decrypt(ciphertext: Uint8Array, expected: EncryptionContext): Promise<Uint8Array> {
    const key = createHash('sha256')
      .update(JSON.stringify([expected.tenant, expected.namespace, expected.recordId]))
      .update(ciphertext)
      .digest('base64url');
    const cached = this.#plaintexts.get(key);
    if (cached) {
      this.#plaintexts.delete(key);
      this.#plaintexts.set(key, cached);
      return Uint8Array.from(cached);
    }
    const plaintext = await this.#inner.decrypt(ciphertext, expected);
    this.#plaintexts.set(key, Uint8Array.from(plaintext));
    if (this.#plaintexts.size > this.#capacity) {
      const oldest = this.#plaintexts.keys().next().value;
      if (oldest !== undefined) this.#plaintexts.delete(oldest);
    }
    return plaintext;
  }
}
