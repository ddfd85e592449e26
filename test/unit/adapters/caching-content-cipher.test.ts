import { describe, expect, it } from 'vitest';
import { CachingContentCipher } from '../../../lambdas/adapters/crypto/caching-content-cipher.ts';
import type { ContentCipher, EncryptionContext } from '../../../lambdas/kernel/crypto/content-cipher.port.ts';
import { CiphertextContextMismatchError } from '../../../lambdas/kernel/crypto/crypto.errors.ts';

/** A cipher that "encrypts" by prefixing the context, refuses any other context, and counts decryptions. */
const countingCipher = () => {
  const calls = { decrypt: 0 };
  const tag = (context: EncryptionContext) => `${context.tenant}|${context.namespace}|${context.recordId}|`;
  const cipher: ContentCipher = {
    encrypt: async (plaintext, context) => Buffer.concat([Buffer.from(tag(context)), plaintext]),
    decrypt: async (ciphertext, expected) => {
      calls.decrypt += 1;
      const text = Buffer.from(ciphertext).toString();
      if (!text.startsWith(tag(expected))) throw new CiphertextContextMismatchError();
      return Buffer.from(text.slice(tag(expected).length));
    },
  };
  return { cipher, calls };
};

const context = { tenant: 'acme', namespace: 't/acme/p/alice/note', recordId: 'r1' };

describe('Class: CachingContentCipher', () => {
  it('decrypts a ciphertext once for the same context', async () => {
    const { cipher, calls } = countingCipher();
    const written = await cipher.encrypt(Buffer.from('hello'), context);
    const caching = new CachingContentCipher({ inner: cipher, maxAgeSeconds: 300 });

    const first = await caching.decrypt(written, context);
    const second = await caching.decrypt(written, context);

    expect(Buffer.from(first).toString()).toBe('hello');
    expect(Buffer.from(second).toString()).toBe('hello');
    expect(calls.decrypt).toBe(1);
  });

  it('reads back what it encrypted itself without decrypting, and a caller changing its bytes changes nothing', async () => {
    const { cipher, calls } = countingCipher();
    const caching = new CachingContentCipher({ inner: cipher, maxAgeSeconds: 300 });
    const plaintext = Buffer.from('hello');
    const ciphertext = await caching.encrypt(plaintext, context);
    plaintext.write('HELLO');

    const read = await caching.decrypt(ciphertext, context);
    read[0] = 0x4a;

    expect(Buffer.from(await caching.decrypt(ciphertext, context)).toString()).toBe('hello');
    expect(calls.decrypt).toBe(0);
  });

  it('never answers another context, or an altered ciphertext, from the cache', async () => {
    const { cipher, calls } = countingCipher();
    const caching = new CachingContentCipher({ inner: cipher, maxAgeSeconds: 300 });
    const ciphertext = await caching.encrypt(Buffer.from('hello'), context);
    await caching.decrypt(ciphertext, context);

    await expect(caching.decrypt(ciphertext, { ...context, namespace: 't/acme/p/bob/note' })).rejects.toBeInstanceOf(
      CiphertextContextMismatchError,
    );
    const altered = Buffer.from(ciphertext);
    altered[altered.length - 1] = 0x21;
    expect(Buffer.from(await caching.decrypt(altered, context)).toString()).toBe('hell!');
    expect(calls.decrypt).toBe(2);
  });

  it('keeps at most its capacity, dropping the least recently used', async () => {
    const { cipher, calls } = countingCipher();
    const caching = new CachingContentCipher({ inner: cipher, maxAgeSeconds: 300, capacity: 2 });
    const texts = await Promise.all(['a', 'b', 'c'].map((text) => cipher.encrypt(Buffer.from(text), context)));
    for (const text of texts) await caching.decrypt(text, context);

    await caching.decrypt(texts[2] as Uint8Array, context);
    await caching.decrypt(texts[0] as Uint8Array, context);

    expect(calls.decrypt).toBe(4);
  });

  it('stops answering from memory once an entry is older than its maximum age, however often it is read', async () => {
    // Prepare: a branch key destroyed (crypto-shredding) must stop this process reading within the keyring's bound.
    const { cipher, calls } = countingCipher();
    let now = 0;
    const caching = new CachingContentCipher({ inner: cipher, maxAgeSeconds: 300, now: () => now });
    const ciphertext = await caching.encrypt(Buffer.from('hello'), context);

    // Act: read it constantly for just under the bound, then once past it.
    for (now = 0; now < 299_000; now += 10_000) await caching.decrypt(ciphertext, context);
    const hitsBeforeTheBound = calls.decrypt;
    now = 300_000;
    await caching.decrypt(ciphertext, context);

    // Assess
    expect(hitsBeforeTheBound).toBe(0);
    expect(calls.decrypt).toBe(1);
  });

  it('refuses a cache without a maximum age', () => {
    expect(() => new CachingContentCipher({ inner: countingCipher().cipher, maxAgeSeconds: 0 })).toThrow(RangeError);
  });
});
