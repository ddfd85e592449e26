import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as sdk from '@aws-crypto/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { CONTEXT_LEFT_OUT, leaveContextOut, putContextBack } from '../../lambdas/adapters/crypto/context-left-out.ts';
import { EncryptionSdkCipher, toSdkContext } from '../../lambdas/adapters/crypto/encryption-sdk-cipher.ts';
import { loadOrCreateLocalKey, localKeyring } from '../../lambdas/adapters/crypto/local-key-file.ts';
import { LOCAL_KMS_KEY_ARN, LocalKms, localKmsClientConfig } from '../../lambdas/adapters/crypto/local-kms.ts';
import { CiphertextContextMismatchError } from '../../lambdas/kernel/crypto/crypto.errors.ts';
import { ServiceUnavailableError } from '../../lambdas/kernel/errors/domain-error.ts';
import { localKeyCipher } from '../support/local-key-cipher.ts';
import { ScriptedTransport } from '../support/scripted-transport.ts';

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

/** A keyring takes (and wipes) a buffer of its own, not a slice of Node's shared pool. */
const ownCopyOf = (key: Buffer) => {
  const own = Buffer.alloc(key.length);
  own.set(key);
  return own;
};

/** What a call rejected with. */
const failureOf = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (error: unknown) => error as Error,
  );

describe('Class: EncryptionSdkCipher', () => {
  it('round-trips under the same context, and the ciphertext does not hold the plaintext', async () => {
    const { cipher } = await cipherWithNewKey();
    const ciphertext = await cipher.encrypt(Buffer.from('pangolin in the pantry'), context);

    expect(Buffer.from(ciphertext).toString('latin1')).not.toContain('pangolin');
    expect(Buffer.from(await cipher.decrypt(ciphertext, context)).toString()).toBe('pangolin in the pantry');
  });

  it('stores a message without the encryption context its header holds in clear, and puts it back to open it', async () => {
    const { cipher } = await cipherWithNewKey();
    const stored = await cipher.encrypt(Buffer.from('pangolin in the pantry'), context);
    const whole = putContextBack(stored, toSdkContext(context));

    // What is stored is the SDK's message less its serialised context (2 + 2 + 3 × 4 bytes of lengths, the keys
    // and the values); none of the three values is in it, and the message put back is a whole one (version 2).
    const contextBytes = Object.entries(toSdkContext(context)).reduce(
      (total, [key, value]) => total + 4 + Buffer.byteLength(key) + Buffer.byteLength(value),
      4,
    );
    expect(stored[0]).toBe(CONTEXT_LEFT_OUT);
    expect(whole[0]).toBe(2);
    expect(whole.length - stored.length).toBe(contextBytes);
    for (const value of Object.values(context)) {
      expect(Buffer.from(stored).toString('latin1')).not.toContain(value);
      expect(Buffer.from(whole).toString('latin1')).toContain(value);
    }
    // Whole messages, as written before, still open; so does what is stored
    expect(Buffer.from(await cipher.decrypt(whole, context)).toString()).toBe('pangolin in the pantry');
    expect(Buffer.from(await cipher.decrypt(stored, context)).toString()).toBe('pangolin in the pantry');
    // A message whose header does not hold that context is stored whole
    expect(leaveContextOut(whole, { ...toSdkContext(context), extra: 'x' })).toBe(whole);
  });

  it('refuses a message stored without its context when read under another: the header it is put back into fails', async () => {
    const { cipher } = await cipherWithNewKey();
    const stored = await cipher.encrypt(Buffer.from('mine'), context);

    for (const other of [
      { ...context, recordId: '01BX5ZZKBKACTAV9WEVGEMMVRZ' },
      { ...context, namespace: 't/acme/p/bob/note' },
      { ...context, tenant: 'globex' },
    ]) {
      const refused = await failureOf(cipher.decrypt(stored, other));
      expect(refused).toBeInstanceOf(CiphertextContextMismatchError);
    }
    // One byte of the stored message changed is refused too
    const tampered = Uint8Array.from(stored);
    tampered[40] = (tampered[40] ?? 0) ^ 1;
    expect(await failureOf(cipher.decrypt(tampered, context))).toBeInstanceOf(CiphertextContextMismatchError);
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

  it('refuses a ciphertext whose context holds a pair beyond the record’s own three, though its key would open it', async () => {
    // Prepare: a message under the right key and the record's context, with one pair more
    const key = await loadOrCreateLocalKey(join(await newFolder('memory-hub-cipher-'), 'key.bin'));
    const cipher = new EncryptionSdkCipher({ keys: localKeyring(ownCopyOf(key)) });
    const { encrypt } = sdk.buildClient(sdk.CommitmentPolicy.REQUIRE_ENCRYPT_REQUIRE_DECRYPT);
    const { result } = await encrypt(localKeyring(ownCopyOf(key)), Buffer.from('planted'), {
      encryptionContext: { ...toSdkContext(context), 'memory-hub:copied-from': 'another-record' },
      suiteId: sdk.AlgorithmSuiteIdentifier.ALG_AES256_GCM_IV12_TAG16_HKDF_SHA512_COMMIT_KEY,
    });

    // Act / Assess
    await expect(cipher.decrypt(result, context)).rejects.toBeInstanceOf(CiphertextContextMismatchError);
  });

  it('refuses another record’s ciphertext on its context alone, and keeps why a ciphertext would not open as the cause', async () => {
    // Prepare: a whole message (as written before contexts were left out), which carries its context
    const { cipher } = await cipherWithNewKey();
    const theirs = await cipherWithNewKey();
    const mine = putContextBack(await cipher.encrypt(Buffer.from('mine'), context), toSdkContext(context));
    const underAnotherKey = await theirs.cipher.encrypt(Buffer.from('theirs'), context);

    // Act
    const [anotherRecord, anotherKey] = [
      await failureOf(cipher.decrypt(mine, { ...context, recordId: '01BX5ZZKBKACTAV9WEVGEMMVRZ' })),
      await failureOf(cipher.decrypt(underAnotherKey, context)),
    ];

    // Assess: the first refused before any data key was unwrapped; the second names what the SDK met
    expect(anotherRecord).toBeInstanceOf(CiphertextContextMismatchError);
    expect(anotherRecord?.cause).toBeUndefined();
    expect(anotherKey).toBeInstanceOf(CiphertextContextMismatchError);
    expect(anotherKey?.cause).toBeInstanceOf(Error);
    expect(anotherKey?.cause).not.toBeInstanceOf(CiphertextContextMismatchError);
  });

  it('fails a write under a bare KMS keyring with ServiceUnavailable when KMS is throttled, after one attempt', async () => {
    // Prepare: a keyring with no keys to create (no branch keys), over a KMS that refuses every call
    const keyFileBytes = randomBytes(32);
    const transport = new ScriptedTransport(new LocalKms(keyFileBytes));
    transport.play(() => ({ refuse: 'ThrottlingException' }));
    const kms = new sdk.KMS({ ...localKmsClientConfig(keyFileBytes), requestHandler: transport, maxAttempts: 1 });
    const cipher = new EncryptionSdkCipher({
      keys: new sdk.KmsKeyringNode({ generatorKeyId: LOCAL_KMS_KEY_ARN, clientProvider: () => kms }),
    });

    // Act
    const failure = await failureOf(cipher.encrypt(Buffer.from('later'), context));

    // Assess
    expect(failure).toBeInstanceOf(ServiceUnavailableError);
    expect(transport.operations()).toEqual(['GenerateDataKey']);
  });
});

describe('Function: loadOrCreateLocalKey', () => {
  it('refuses a key file that does not hold a 32-byte key, saying so', async () => {
    const path = join(await newFolder('memory-hub-key-'), 'content-key.bin');
    await writeFile(path, Buffer.alloc(16, 1), { mode: 0o600 });

    await expect(loadOrCreateLocalKey(path)).rejects.toThrow(
      new Error(`The local key file ${path} does not hold a 32-byte key`),
    );
  });

  it('gives every concurrent first start the one key that was written', async () => {
    const path = join(await newFolder('memory-hub-key-'), 'content-key.bin');

    const keys = await Promise.all([1, 2, 3].map(() => loadOrCreateLocalKey(path)));

    expect(keys[1]).toEqual(keys[0]);
    expect(keys[2]).toEqual(keys[0]);
  });

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
