import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as sdk from '@aws-crypto/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { EncryptionSdkCipher, toSdkContext } from '../../lambdas/adapters/crypto/encryption-sdk-cipher.ts';
import { loadOrCreateLocalKey, localKeyring } from '../../lambdas/adapters/crypto/local-key-file.ts';
import { CiphertextContextMismatchError } from '../../lambdas/kernel/crypto/crypto.errors.ts';
import { localKeyCipher } from '../support/local-key-cipher.ts';

/** The temporary folders a test made, removed after it. */
const folders: string[] = [];
const newFolder = async (prefix: string) => {
  const folder = await mkdtemp(join(tmpdir(), prefix));
  folders.push(folder);
  return folder;
};

afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

const cipherWithNewKey = async () => {
  const folder = await newFolder('memory-hub-cipher-');
  return { cipher: await localKeyCipher(folder, 'key.bin') };
};

const context = { tenant: 'acme', namespace: 't/acme/p/alice/note', recordId: '01ARZ3NDEKTSV4RRFFQ69G5FAV' };

describe('Class: EncryptionSdkCipher', () => {
  it('round-trips under the same context, and the ciphertext does not hold the plaintext', async () => {
    const { cipher } = await cipherWithNewKey();
    const ciphertext = await cipher.encrypt(Buffer.from('pangolin in the pantry'), context);

    expect(Buffer.from(ciphertext).toString('latin1')).not.toContain('pangolin');
    expect(Buffer.from(await cipher.decrypt(ciphertext, context)).toString()).toBe('pangolin in the pantry');
  });

  it.each([
    ['another tenant', { ...context, tenant: 'globex' }],
    ['another namespace', { ...context, namespace: 't/acme/p/bob/note' }],
    ['another record', { ...context, recordId: '01BX5ZZKBKACTAV9WEVGEMMVRZ' }],
  ])('refuses to decrypt for %s', async (_, other) => {
    const { cipher } = await cipherWithNewKey();
    const ciphertext = await cipher.encrypt(Buffer.from('secret'), context);

    await expect(cipher.decrypt(ciphertext, other)).rejects.toBeInstanceOf(CiphertextContextMismatchError);
  });

  it('refuses a ciphertext made under another key', async () => {
    const mine = await cipherWithNewKey();
    const theirs = await cipherWithNewKey();
    const ciphertext = await theirs.cipher.encrypt(Buffer.from('secret'), context);

    await expect(mine.cipher.decrypt(ciphertext, context)).rejects.toBeInstanceOf(CiphertextContextMismatchError);
  });

  it('cannot be built without a keyring', () => {
    expect(() => new EncryptionSdkCipher({ keys: undefined as never })).toThrow(/keyring/);
  });
});

describe('Function: loadOrCreateLocalKey', () => {
  it('creates a 32-byte key readable only by its owner, and returns the same key afterwards', async () => {
    const path = join(await newFolder('memory-hub-key-'), 'keys', 'content-key.bin');
    const first = await loadOrCreateLocalKey(path);

    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(first).toHaveLength(32);
    expect(await loadOrCreateLocalKey(path)).toEqual(first);
  });

  it('refuses a key file others can read', async () => {
    const path = join(await newFolder('memory-hub-key-'), 'content-key.bin');
    await writeFile(path, Buffer.alloc(32, 1));
    await chmod(path, 0o644);

    await expect(loadOrCreateLocalKey(path)).rejects.toThrow(/readable by others/);
  });

  it('refuses a message carrying more than one encrypted data key before trying any of them', async () => {
    // Prepare: a planted message wrapping its data key twice, both under the right key (each wrapped copy of an
    // old message would otherwise cost the per-record keyring a KMS call).
    const folder = await newFolder('memory-hub-cipher-');
    const key = await loadOrCreateLocalKey(join(folder, 'key.bin'));
    // A keyring takes (and wipes) a buffer of its own, not a slice of Node's shared pool.
    const copy = () => {
      const own = Buffer.alloc(key.length);
      own.set(key);
      return own;
    };
    const cipher = new EncryptionSdkCipher({ keys: localKeyring(copy()) });
    const twice = new sdk.MultiKeyringNode({ generator: localKeyring(copy()), children: [localKeyring(copy())] });
    const { encrypt } = sdk.buildClient(sdk.CommitmentPolicy.REQUIRE_ENCRYPT_REQUIRE_DECRYPT);
    const { result } = await encrypt(twice, Buffer.from('planted'), {
      encryptionContext: toSdkContext(context),
      suiteId: sdk.AlgorithmSuiteIdentifier.ALG_AES256_GCM_IV12_TAG16_HKDF_SHA512_COMMIT_KEY,
    });

    // Act / Assess
    await expect(cipher.decrypt(result, context)).rejects.toThrow();
  });
});
