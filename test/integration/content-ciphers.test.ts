import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IncorrectKeyException, InvalidCiphertextException, KMS, NotFoundException } from '@aws-sdk/client-kms';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CachingContentCipher } from '../../lambdas/adapters/crypto/caching-content-cipher.ts';
import { EncryptionSdkCipher } from '../../lambdas/adapters/crypto/encryption-sdk-cipher.ts';
import { kmsKeys } from '../../lambdas/adapters/crypto/kms-keys.ts';
import { InMemoryMetrics } from '../../lambdas/adapters/observability/in-memory-metrics.ts';
import { ServiceUnavailableError } from '../../lambdas/kernel/errors/domain-error.ts';
import {
  type ContentCipherFixture,
  contextOf,
  describeContentCipherContract,
} from '../contract/content-cipher.contract.ts';
import { type KmsStandIn, startKmsStandIn } from '../support/kms-stand-in.ts';
import { localKeyCipher } from '../support/local-key-cipher.ts';

const ACME_KEY = 'arn:aws:kms:us-east-1:111122223333:key/1a2b3c4d-0000-4000-8000-00000000acme';
const GLOBEX_KEY = 'arn:aws:kms:us-east-1:111122223333:key/1a2b3c4d-0000-4000-8000-0000000globex';

/** Two ciphers over two fresh local key files, as two local installations would have. */
const localCiphers = async () => {
  const folder = await mkdtemp(join(tmpdir(), 'memory-hub-ciphers-'));
  return {
    cipher: await localKeyCipher(folder, 'content-key.bin'),
    foreign: await localKeyCipher(folder, 'other-content-key.bin'),
    close: () => rm(folder, { recursive: true, force: true }),
  };
};

/** A real KMS client's configuration pointed at the stand-in; one attempt, so a refused call fails at once, not after backoff. */
const kmsConfigOf = (standIn: KmsStandIn) => ({
  endpoint: standIn.url,
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  maxAttempts: 1,
});

const kmsClientOf = (standIn: KmsStandIn) => new KMS(kmsConfigOf(standIn));

/** The Encryption SDK cipher over KMS exactly as `aws-application.ts` builds it, with the stand-in as KMS. */
const kmsCipherOf = (standIn: KmsStandIn, keyArn: string) =>
  new EncryptionSdkCipher({
    ...kmsKeys({ keyArn, clientConfig: kmsConfigOf(standIn) }),
    metrics: new InMemoryMetrics(),
  });

const kmsCiphers = async () => {
  const standIn = await startKmsStandIn([ACME_KEY, GLOBEX_KEY]);
  return {
    standIn,
    cipher: kmsCipherOf(standIn, ACME_KEY),
    foreign: kmsCipherOf(standIn, GLOBEX_KEY),
    close: () => standIn.close(),
  };
};

describeContentCipherContract('EncryptionSdkCipher over the local AES key', localCiphers);

describeContentCipherContract('CachingContentCipher over the EncryptionSdkCipher on the local key', async () => {
  const local = await localCiphers();
  return { ...local, cipher: new CachingContentCipher({ inner: local.cipher }) } satisfies ContentCipherFixture;
});

describeContentCipherContract('EncryptionSdkCipher over KMS (stand-in), as AWS builds its keyring', kmsCiphers);

describeContentCipherContract('CachingContentCipher over KMS (stand-in): the AWS composition', async () => {
  const kms = await kmsCiphers();
  return { ...kms, cipher: new CachingContentCipher({ inner: kms.cipher }) } satisfies ContentCipherFixture;
});

describe('Fixture: EncryptionSdkCipher over KMS (stand-in)', () => {
  let kms: Awaited<ReturnType<typeof kmsCiphers>>;

  beforeAll(async () => {
    kms = await kmsCiphers();
  });

  afterAll(async () => {
    await kms?.close();
  });

  // A throttling test that fails must not leave the key service refusing the next one.
  afterEach(() => {
    kms.standIn.throttle(false);
  });

  it('goes through the real KMS keyring: a data key generated, then decrypted, under the record’s context and key', async () => {
    // Prepare
    const context = contextOf('acme', 'alice');
    const before = kms.standIn.calls.length;

    // Act
    const ciphertext = await kms.cipher.encrypt(Buffer.from('through KMS'), context);
    const plaintext = await kms.cipher.decrypt(ciphertext, context);

    // Assess
    expect(Buffer.from(plaintext).toString()).toBe('through KMS');
    const bound = {
      'memory-hub:tenant': context.tenant,
      'memory-hub:namespace': context.namespace,
      'memory-hub:record': context.recordId,
    };
    expect(kms.standIn.calls.slice(before)).toEqual([
      { operation: 'GenerateDataKey', keyId: ACME_KEY, encryptionContext: bound, error: undefined },
      { operation: 'Decrypt', keyId: ACME_KEY, encryptionContext: bound, error: undefined },
    ]);
  });

  it('asks KMS nothing for a ciphertext presented under another context: it is refused before', async () => {
    // Prepare
    const context = contextOf('acme', 'alice');
    const ciphertext = await kms.cipher.encrypt(Buffer.from('mine'), context);
    const before = kms.standIn.calls.length;

    // Act
    const decrypting = kms.cipher.decrypt(ciphertext, { ...context, tenant: 'globex' });

    // Assess
    await expect(decrypting).rejects.toThrow(/does not belong/);
    expect(kms.standIn.calls.slice(before)).toEqual([]);
  });

  it('turns a throttled KMS on encrypt into ServiceUnavailable, which the caller may retry', async () => {
    // Prepare
    kms.standIn.throttle(true);

    // Act
    const encrypting = kms.cipher.encrypt(Buffer.from('later'), contextOf('acme', 'alice'));

    // Assess
    await expect(encrypting).rejects.toBeInstanceOf(ServiceUnavailableError);
  });

  it('turns a throttled KMS on decrypt into ServiceUnavailable, not a verdict on the ciphertext', async () => {
    // Prepare: a fresh ciphertext, so no cached materials answer for it
    const context = contextOf('acme', 'alice');
    const ciphertext = await kms.cipher.encrypt(Buffer.from('still mine'), context);
    kms.standIn.throttle(true);

    // Act
    const decrypting = kms.cipher.decrypt(ciphertext, context);

    // Assess: a mismatch would make the revision store drop the record as if it were foreign
    await expect(decrypting).rejects.toBeInstanceOf(ServiceUnavailableError);
  });
});

describe('Stand-in: KMS over AWS JSON 1.1', () => {
  let standIn: KmsStandIn;
  let client: KMS;
  const context = { purpose: 'stand-in test', record: 'r1' };

  beforeAll(async () => {
    standIn = await startKmsStandIn([ACME_KEY, GLOBEX_KEY]);
    client = kmsClientOf(standIn);
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
    const otherClient = kmsClientOf(elsewhere);
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
