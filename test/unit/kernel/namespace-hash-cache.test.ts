import { beforeEach, describe, expect, it, vi } from 'vitest';

// Counts the digests computed, to see what the bounded cache of namespace hashes spares.
const digests = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return {
    ...crypto,
    createHash: (algorithm: string) => {
      digests.count += 1;
      return crypto.createHash(algorithm);
    },
  };
});

/** A fresh copy of the module, with an empty cache. */
const freshHashing = async () => {
  vi.resetModules();
  return (await import('../../../lambdas/kernel/namespaces/namespace.ts')).hashNamespaceKey;
};

const CAPACITY = 10_000;

describe('Function: hashNamespaceKey', () => {
  beforeEach(() => {
    digests.count = 0;
  });

  it('is stable, opaque, and computed once per key while the key is remembered', async () => {
    // Prepare
    const hashNamespaceKey = await freshHashing();

    // Act
    const first = hashNamespaceKey('t/acme/p/alice/note');
    const second = hashNamespaceKey('t/acme/p/bob/note');
    const again = hashNamespaceKey('t/acme/p/alice/note');

    // Assess
    expect(again).toBe(first);
    expect(second).not.toBe(first);
    expect(first).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(digests.count).toBe(2);
  });

  it(`remembers ${CAPACITY} keys, then starts afresh rather than growing without bound`, async () => {
    // Prepare: exactly as many keys as the cache holds
    const hashNamespaceKey = await freshHashing();
    const keys = Array.from({ length: CAPACITY }, (_, index) => `t/acme/p/principal-${index}/note`);
    const hashes = keys.map(hashNamespaceKey);
    hashNamespaceKey(keys[0] as string);
    expect(digests.count).toBe(CAPACITY);

    // Act: one more key fills it past its bound
    hashNamespaceKey('t/acme/p/one-more/note');
    const recomputed = hashNamespaceKey(keys[0] as string);

    // Assess: the earlier keys were forgotten (and hash to the same values when asked again)
    expect(recomputed).toBe(hashes[0]);
    expect(digests.count).toBe(CAPACITY + 2);
  });
});
