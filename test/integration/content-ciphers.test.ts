import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  IncorrectKeyException,
  InvalidCiphertextException,
  KMS,
  NotFoundException,
  ReEncryptCommand,
} from '@aws-sdk/client-kms';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { contentCipherOver, type HierarchicalKeys } from '../../lambdas/adapters/crypto/hierarchical-keys.ts';
import type { ContentCipher } from '../../lambdas/kernel/crypto/content-cipher.port.ts';
import { ServiceUnavailableError } from '../../lambdas/kernel/errors/domain-error.ts';
import { contextOf, describeContentCipherContract } from '../contract/content-cipher.contract.ts';
import { awsModeKeys, cipherOver, kmsConfigOf, localModeKeys, startKeyStoreEngine } from '../support/branch-keys.ts';
import { type KmsStandIn, startKmsStandIn } from '../support/kms-stand-in.ts';
import { localKeyCipher } from '../support/local-key-cipher.ts';

const ACME_KEY = 'arn:aws:kms:us-east-1:111122223333:key/1a2b3c4d-0000-4000-8000-00000000acme';
const GLOBEX_KEY = 'arn:aws:kms:us-east-1:111122223333:key/1a2b3c4d-0000-4000-8000-0000000globex';

/** Two ciphers over two fresh local key files, as two local installations before branch keys had. */
const bareLocalCiphers = async () => {
  const folder = await mkdtemp(join(tmpdir(), 'memory-hub-ciphers-'));
  return {
    cipher: await localKeyCipher(folder, 'content-key.bin'),
    peer: await localKeyCipher(folder, 'content-key.bin'),
    foreign: await localKeyCipher(folder, 'other-content-key.bin'),
    close: () => rm(folder, { recursive: true, force: true }),
  };
};

/** How a cipher is made over keys: the bare Encryption SDK cipher, or the composition's (`contentCipherOver`). */
type CipherOver = (keys: HierarchicalKeys) => ContentCipher;

/** Local mode's composition: branch keys on the embedded engine, the local KMS over a key file; another installation beside it. */
const localModeCiphers = async (over: CipherOver = cipherOver) => {
  const store = await startKeyStoreEngine();
  const [mine, theirs] = [await store.newTable(), await store.newTable()];
  return {
    store,
    cipher: over(await localModeKeys(store, { keyStoreTableName: mine, keyFile: 'content-key.bin' })),
    peer: over(await localModeKeys(store, { keyStoreTableName: mine, keyFile: 'content-key.bin' })),
    foreign: cipherOver(await localModeKeys(store, { keyStoreTableName: theirs, keyFile: 'other-content-key.bin' })),
    close: () => store.close(),
  };
};

/** AWS mode's composition: branch keys wrapped by a KMS key (the stand-in); another tenant's key and key store beside it. */
const awsModeCiphers = async (over: CipherOver = cipherOver) => {
  const standIn = await startKmsStandIn([ACME_KEY, GLOBEX_KEY]);
  const store = await startKeyStoreEngine('http');
  const [mine, theirs] = [await store.newTable(), await store.newTable()];
  return {
    standIn,
    store,
    cipher: over(awsModeKeys(store, { standIn, keyArn: ACME_KEY, keyStoreTableName: mine })),
    peer: over(awsModeKeys(store, { standIn, keyArn: ACME_KEY, keyStoreTableName: mine })),
    foreign: cipherOver(awsModeKeys(store, { standIn, keyArn: GLOBEX_KEY, keyStoreTableName: theirs })),
    keyStoreTableName: mine,
    close: async () => {
      await store.close();
      await standIn.close();
    },
  };
};

describeContentCipherContract('EncryptionSdkCipher over branch keys, local mode (local KMS)', () => localModeCiphers());

describeContentCipherContract('CachingContentCipher over branch keys, local mode: the local composition', () =>
  localModeCiphers(contentCipherOver),
);

describeContentCipherContract('EncryptionSdkCipher over branch keys, AWS mode (KMS stand-in)', () => awsModeCiphers());

describeContentCipherContract('CachingContentCipher over branch keys, AWS mode: the AWS composition', () =>
  awsModeCiphers(contentCipherOver),
);

describeContentCipherContract('EncryptionSdkCipher over the bare local AES key (before branch keys)', bareLocalCiphers);

describe('Fixture: EncryptionSdkCipher over branch keys wrapped by KMS (stand-in)', () => {
  let aws: Awaited<ReturnType<typeof awsModeCiphers>>;

  beforeAll(async () => {
    aws = await awsModeCiphers();
  });

  afterAll(async () => {
    await aws?.close();
  });

  // A throttling test that fails must not leave the key service refusing the next one.
  afterEach(() => {
    aws.standIn.throttle(false);
  });

  it('asks KMS nothing for a ciphertext presented under another context: it is refused before', async () => {
    // Prepare
    const context = contextOf('acme', 'alice');
    const ciphertext = await aws.cipher.encrypt(Buffer.from('mine'), context);
    const before = aws.standIn.calls.length;

    // Act
    const decrypting = aws.cipher.decrypt(ciphertext, { ...context, tenant: 'globex' });

    // Assess
    await expect(decrypting).rejects.toThrow(/does not belong/);
    expect(aws.standIn.calls.slice(before)).toEqual([]);
  });

  it('turns a throttled KMS at a scope’s first write into ServiceUnavailable, which the caller may retry', async () => {
    // Prepare: a principal whose branch key does not exist yet
    aws.standIn.throttle(true);

    // Act
    const encrypting = aws.cipher.encrypt(Buffer.from('later'), contextOf('acme', 'first-write-throttled'));

    // Assess
    await expect(encrypting).rejects.toBeInstanceOf(ServiceUnavailableError);
  });

  it('turns a throttled KMS on decrypt into ServiceUnavailable, not a verdict on the ciphertext', async () => {
    // Prepare: written by one process; read by a fresh one, which must have KMS unwrap the branch key
    const context = contextOf('acme', 'alice');
    const ciphertext = await aws.cipher.encrypt(Buffer.from('still mine'), context);
    const fresh = cipherOver(
      awsModeKeys(aws.store, { standIn: aws.standIn, keyArn: ACME_KEY, keyStoreTableName: aws.keyStoreTableName }),
    );
    // Its naming key is fetched by another scope's write: what is left is unwrapping alice's branch key.
    await fresh.encrypt(Buffer.from('someone else’s'), contextOf('acme', 'someone-else'));
    aws.standIn.throttle(true);

    // Act
    const decrypting = fresh.decrypt(ciphertext, context);

    // Assess: a mismatch would make the revision store drop the record as if it were foreign
    await expect(decrypting).rejects.toBeInstanceOf(ServiceUnavailableError);
  });

  it('creates a scope’s branch key once, on its first write, with the calls and contexts of the key store spec', async () => {
    // Prepare
    const before = aws.standIn.calls.length;

    // Act
    await aws.cipher.encrypt(Buffer.from('first of bob'), contextOf('acme', 'bob'));

    // Assess: the version key generated, re-encrypted to the active item, the beacon key; then the active one unwrapped
    const calls = aws.standIn.calls.slice(before);
    expect(calls.map((call) => call.operation)).toEqual([
      'GenerateDataKeyWithoutPlaintext',
      'ReEncrypt',
      'GenerateDataKeyWithoutPlaintext',
      'Decrypt',
    ]);
    for (const call of calls) {
      expect(call.keyId).toBe(ACME_KEY);
      expect(call.encryptionContext).toMatchObject({
        tablename: `${aws.keyStoreTableName}-logical`,
        'kms-arn': ACME_KEY,
        'hierarchy-version': '1',
        'branch-key-id': expect.stringMatching(/^mh1-[A-Za-z0-9_-]{43}$/),
      });
    }
    expect(calls.map((call) => call.encryptionContext?.type)).toEqual([
      expect.stringMatching(/^branch:version:[0-9a-f-]{36}$/),
      'branch:ACTIVE',
      'beacon:ACTIVE',
      'branch:ACTIVE',
    ]);
  });
});

describe('Stand-in: KMS over AWS JSON 1.1', () => {
  let standIn: KmsStandIn;
  let client: KMS;
  const context = { purpose: 'stand-in test', record: 'r1' };

  beforeAll(async () => {
    standIn = await startKmsStandIn([ACME_KEY, GLOBEX_KEY]);
    client = new KMS(kmsConfigOf(standIn));
  });

  afterAll(async () => {
    client?.destroy();
    await standIn?.close();
  });

  it('generates a data key whose blob decrypts back to it under the same context, in any order', async () => {
    // Act
    const generated = await client.generateDataKey({ KeyId: ACME_KEY, NumberOfBytes: 32, EncryptionContext: context });
    const decrypted = await client.decrypt({
      CiphertextBlob: generated.CiphertextBlob,
      EncryptionContext: { record: 'r1', purpose: 'stand-in test' },
    });

    // Assess
    expect(generated.Plaintext).toHaveLength(32);
    expect(decrypted.KeyId).toBe(ACME_KEY);
    expect(Buffer.from(decrypted.Plaintext as Uint8Array).equals(Buffer.from(generated.Plaintext as Uint8Array))).toBe(
      true,
    );
  });

  it('generates a key without its plaintext, and re-encrypts it to another context: both open to the same key', async () => {
    // Prepare
    const generated = await client.generateDataKeyWithoutPlaintext({
      KeyId: ACME_KEY,
      NumberOfBytes: 32,
      EncryptionContext: context,
    });

    // Act
    const moved = await client.send(
      new ReEncryptCommand({
        CiphertextBlob: generated.CiphertextBlob,
        SourceEncryptionContext: context,
        DestinationKeyId: ACME_KEY,
        DestinationEncryptionContext: { ...context, record: 'r2' },
      }),
    );

    // Assess
    expect(generated).not.toHaveProperty('Plaintext');
    const [first, second] = await Promise.all([
      client.decrypt({ CiphertextBlob: generated.CiphertextBlob, EncryptionContext: context }),
      client.decrypt({ CiphertextBlob: moved.CiphertextBlob, EncryptionContext: { ...context, record: 'r2' } }),
    ]);
    expect(first.Plaintext).toHaveLength(32);
    expect(Buffer.from(first.Plaintext as Uint8Array).equals(Buffer.from(second.Plaintext as Uint8Array))).toBe(true);
    await expect(
      client.send(
        new ReEncryptCommand({
          CiphertextBlob: generated.CiphertextBlob,
          SourceEncryptionContext: { ...context, record: 'r9' },
          DestinationKeyId: ACME_KEY,
        }),
      ),
    ).rejects.toBeInstanceOf(InvalidCiphertextException);
  });

  it('refuses Decrypt under another context with InvalidCiphertextException', async () => {
    // Prepare
    const { CiphertextBlob } = await client.encrypt({
      KeyId: ACME_KEY,
      Plaintext: Buffer.from('k'),
      EncryptionContext: context,
    });

    // Act
    const decrypting = client.decrypt({ CiphertextBlob, EncryptionContext: { ...context, record: 'r2' } });

    // Assess
    await expect(decrypting).rejects.toBeInstanceOf(InvalidCiphertextException);
  });

  it('refuses a key it does not hold with NotFoundException, and a KeyId that is not the blob’s with IncorrectKeyException', async () => {
    // Prepare: a blob of a key only another KMS holds
    const elsewhere = await startKmsStandIn(['arn:aws:kms:us-east-1:444455556666:key/elsewhere']);
    const otherClient = new KMS(kmsConfigOf(elsewhere));
    const { CiphertextBlob: foreignBlob } = await otherClient.encrypt({
      KeyId: 'arn:aws:kms:us-east-1:444455556666:key/elsewhere',
      Plaintext: Buffer.from('k'),
    });
    otherClient.destroy();
    await elsewhere.close();
    const { CiphertextBlob: acmeBlob } = await client.encrypt({ KeyId: ACME_KEY, Plaintext: Buffer.from('k') });

    // Act
    const outcomes = [
      client.generateDataKey({ KeyId: 'arn:aws:kms:us-east-1:111122223333:key/unknown', KeySpec: 'AES_256' }),
      client.decrypt({ CiphertextBlob: foreignBlob }),
      client.decrypt({ CiphertextBlob: acmeBlob, KeyId: GLOBEX_KEY }),
    ];

    // Assess
    await expect(outcomes[0]).rejects.toBeInstanceOf(NotFoundException);
    await expect(outcomes[1]).rejects.toBeInstanceOf(NotFoundException);
    await expect(outcomes[2]).rejects.toBeInstanceOf(IncorrectKeyException);
  });

  it('records each call with its key and context, and the error a refused one met', async () => {
    // Prepare
    const before = standIn.calls.length;

    // Act
    await client.encrypt({ KeyId: ACME_KEY, Plaintext: Buffer.from('k'), EncryptionContext: context });
    await client.generateDataKey({ KeyId: GLOBEX_KEY, NumberOfBytes: 64 }).catch(() => undefined);
    await client.generateDataKey({ KeyId: GLOBEX_KEY, NumberOfBytes: 64, KeySpec: 'AES_256' }).catch(() => undefined);

    // Assess
    expect(standIn.calls.slice(before)).toEqual([
      { operation: 'Encrypt', keyId: ACME_KEY, encryptionContext: context, error: undefined },
      { operation: 'GenerateDataKey', keyId: GLOBEX_KEY, encryptionContext: undefined, error: undefined },
      { operation: 'GenerateDataKey', keyId: GLOBEX_KEY, encryptionContext: undefined, error: 'ValidationException' },
    ]);
  });
});
