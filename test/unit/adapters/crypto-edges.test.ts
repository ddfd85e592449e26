import { randomBytes } from 'node:crypto';
import {
  DecryptCommand,
  GenerateDataKeyWithoutPlaintextCommand,
  InvalidCiphertextException,
  KMSClient,
  NotFoundException,
  ReEncryptCommand,
} from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import { BranchKeyIds } from '../../../lambdas/adapters/crypto/branch-key-ids.ts';
import { CachingContentCipher } from '../../../lambdas/adapters/crypto/caching-content-cipher.ts';
import { LOCAL_KMS_KEY_ARN, localKmsClientConfig } from '../../../lambdas/adapters/crypto/local-kms.ts';
import { errorResponse, KERNEL_ERROR_STATUSES } from '../../../lambdas/http/error-responses.ts';
import type { ContentCipher, EncryptionContext } from '../../../lambdas/kernel/crypto/content-cipher.port.ts';
import { CiphertextContextMismatchError } from '../../../lambdas/kernel/crypto/crypto.errors.ts';

/* The crypto adapters at their edges: what the local KMS refuses and how, ids per scope, the plaintext cache. */

const context = { 'branch-key-id': 'b1', type: 'branch:ACTIVE', tablename: 'store' };

describe('Class: LocalKms', () => {
  const config = localKmsClientConfig(randomBytes(32));
  const kms = config.requestHandler;
  const client = new KMSClient({ ...config, maxAttempts: 1 });
  const generate = (input: Record<string, unknown>) =>
    client.send(new GenerateDataKeyWithoutPlaintextCommand({ KeyId: LOCAL_KMS_KEY_ARN, ...input }));
  /** The error name and message KMS answered, as the SDK hands them to the key store. */
  const refusal = async (sending: Promise<unknown>) => {
    const error = (await sending.then(
      () => undefined,
      (failure: unknown) => failure,
    )) as { name: string; message: string } | undefined;
    return error && { name: error.name, message: error.message };
  };

  describe('GenerateDataKeyWithoutPlaintext', () => {
    it.each([
      ['a KeySpec of AES_256', { KeySpec: 'AES_256' }, 32],
      ['a KeySpec of AES_128', { KeySpec: 'AES_128' }, 16],
      ['1 byte', { NumberOfBytes: 1 }, 1],
      ['1024 bytes', { NumberOfBytes: 1024 }, 1024],
    ])('generates a key of %s', async (_, input, length) => {
      const { CiphertextBlob } = await generate({ ...input, EncryptionContext: context });
      const { Plaintext } = await client.send(new DecryptCommand({ CiphertextBlob, EncryptionContext: context }));

      expect(Plaintext).toHaveLength(length);
    });

    it.each([
      ['no size', {}],
      ['0 bytes', { NumberOfBytes: 0 }],
      ['1025 bytes', { NumberOfBytes: 1025 }],
      ['both a KeySpec and a size', { KeySpec: 'AES_256', NumberOfBytes: 32 }],
      ['both the KeySpec AES_128 and a size', { KeySpec: 'AES_128', NumberOfBytes: 16 }],
      ['another KeySpec', { KeySpec: 'HMAC_256' }],
    ])('refuses %s', async (_, input) => {
      expect(await refusal(generate(input))).toEqual({
        name: 'ValidationException',
        message: 'Give either a KeySpec or a NumberOfBytes from 1 to 1024',
      });
    });

    it.each([
      ['a number among its values', { n: 1 }],
      ['a number beside a string', { a: 'b', n: 1 }],
    ])('refuses a context with %s: a context maps strings to strings', async (_, EncryptionContext) => {
      expect(await refusal(generate({ NumberOfBytes: 32, EncryptionContext }))).toEqual({
        name: 'ValidationException',
        message: 'An encryption context maps strings to strings',
      });
    });

    it('refuses another key', async () => {
      expect(await refusal(generate({ KeyId: 'arn:aws:kms:local:000000000000:key/other', NumberOfBytes: 32 }))).toEqual(
        { name: 'NotFoundException', message: 'The local KMS holds no such key' },
      );
    });
  });

  describe('Decrypt and ReEncrypt', () => {
    const sealed = async () => (await generate({ NumberOfBytes: 32, EncryptionContext: context })).CiphertextBlob;

    it('refuses a Decrypt that names another key, even of a blob it made', async () => {
      const decrypting = client.send(
        new DecryptCommand({ KeyId: 'other', CiphertextBlob: await sealed(), EncryptionContext: context }),
      );

      await expect(decrypting).rejects.toBeInstanceOf(NotFoundException);
    });

    it.each([
      ['a blob too short to hold a key', Buffer.from('MHK1short')],
      ['a blob without the local mark', Buffer.alloc(64, 7)],
    ])('refuses %s as an invalid ciphertext', async (_, blob) => {
      await expect(
        client.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context })),
      ).rejects.toBeInstanceOf(InvalidCiphertextException);
    });

    it('refuses a blob of 32 bytes with the mark: too short for the IV and the tag', async () => {
      const blob = Buffer.concat([Buffer.from('MHK1'), Buffer.alloc(27)]);

      await expect(
        client.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context })),
      ).rejects.toBeInstanceOf(InvalidCiphertextException);
    });

    it.each([
      ['another source key', { SourceKeyId: 'other', DestinationKeyId: LOCAL_KMS_KEY_ARN }],
      ['another destination key', { DestinationKeyId: 'other' }],
      ['no destination key', {}],
    ])('refuses a ReEncrypt to or from %s', async (_, keys) => {
      const reEncrypting = client.send(
        new ReEncryptCommand({ CiphertextBlob: await sealed(), SourceEncryptionContext: context, ...keys } as never),
      );

      await expect(reEncrypting).rejects.toBeInstanceOf(NotFoundException);
    });

    it('re-encrypts from the key it holds when no source key is named', async () => {
      const moved = await client.send(
        new ReEncryptCommand({
          CiphertextBlob: await sealed(),
          SourceEncryptionContext: context,
          DestinationKeyId: LOCAL_KMS_KEY_ARN,
          DestinationEncryptionContext: { ...context, type: 'branch:version:1' },
        }),
      );

      expect(moved).toMatchObject({
        KeyId: LOCAL_KMS_KEY_ARN,
        SourceKeyId: LOCAL_KMS_KEY_ARN,
        SourceEncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
        DestinationEncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
      });
    });

    it('answers Decrypt with the key and the algorithm it used', async () => {
      const opened = await client.send(
        new DecryptCommand({ CiphertextBlob: await sealed(), EncryptionContext: context }),
      );

      expect(opened).toMatchObject({ KeyId: LOCAL_KMS_KEY_ARN, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' });
    });
  });

  it('opens a blob an earlier release made from the same key file: its key derivation is fixed', async () => {
    const earlier = new KMSClient({ ...localKmsClientConfig(Buffer.alloc(32, 2)), maxAttempts: 1 });
    const blob = Buffer.from('TUhLMXbiB6dZVM8b5g6YzonYWZvNVGUn8Wfamenp5aYZyRNXPWOP9rOkJ/CI+Qpo', 'base64');

    const { Plaintext } = await earlier.send(
      new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: { a: 'b' } }),
    );

    expect(Buffer.from(Plaintext as Uint8Array).toString('hex')).toBe('22a5e8b19ef0d2601b769edede71f4e6');
  });

  it('opens a blob an earlier release made under a context of several pairs: the order it binds them in is fixed', async () => {
    // A local key store's branch keys are bound to contexts like this one; each pair's place is part of the blob.
    const earlier = new KMSClient({ ...localKmsClientConfig(Buffer.alloc(32, 2)), maxAttempts: 1 });
    const blob = Buffer.from('TUhLMVd13yzC0DfKUBXhQLxSbDK4QAneDl+perIcC+4OaT1D/mQYKvybLM6cLSYY', 'base64');
    const bound = {
      type: 'branch:ACTIVE',
      'branch-key-id': 'b1',
      tablename: 'store',
      'hierarchy-version': '1',
      'create-time': '2026-12-01T00:00:00.000000Z',
    };
    const reordered = Object.fromEntries(Object.entries(bound).reverse());

    const opened = await Promise.all(
      [bound, reordered].map((EncryptionContext) =>
        earlier.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext })),
      ),
    );

    for (const { Plaintext } of opened) {
      expect(Buffer.from(Plaintext as Uint8Array).toString('hex')).toBe('3fdfa765c260475cb63f89924f0d02e1');
    }
  });

  it('opens a key under its context given in any order of its pairs', async () => {
    const pairs = Object.entries({ e: '5', c: '3', a: '1', d: '4', b: '2', f: '6' });
    const orders = [pairs, [...pairs].reverse(), [...pairs.slice(3), ...pairs.slice(0, 3)], [...pairs].sort()];
    const { CiphertextBlob } = await generate({ NumberOfBytes: 32, EncryptionContext: Object.fromEntries(pairs) });

    const opened = await Promise.all(
      orders.map((order) =>
        client.send(new DecryptCommand({ CiphertextBlob, EncryptionContext: Object.fromEntries(order) })),
      ),
    );

    for (const { Plaintext } of opened) expect(Plaintext).toHaveLength(32);
  });

  describe('Method: handle', () => {
    const request = (target: string, body: unknown) =>
      kms.handle({ headers: { 'x-amz-target': target }, body } as never).then(({ response }) => ({
        status: response.statusCode,
        type: response.headers['x-amzn-errortype'],
        body: JSON.parse(Buffer.from(response.body as Uint8Array).toString('utf8')) as Record<string, unknown>,
      }));

    it.each([
      ['an operation the key store does not call', 'TrentService.Encrypt', '{}'],
      ['a target of another service', 'DynamoDB_20120810.Decrypt', '{}'],
      ['a target that only ends in a known operation', 'NotTrentService.Decrypt', '{}'],
    ])('answers %s as unknown', async (_, target, body) => {
      expect(await request(target, body)).toEqual({
        status: 400,
        type: 'UnknownOperationException',
        body: { __type: 'UnknownOperationException', message: 'The local KMS serves only what the key store calls' },
      });
    });

    it.each([
      ['an array', '[]'],
      ['JSON null', 'null'],
      ['text that is not JSON', 'not json'],
      ['a JSON number', '5'],
      ['a JSON string', '"Decrypt"'],
    ])('answers a body that is %s as a serialisation error', async (_, body) => {
      expect(await request('TrentService.Decrypt', body)).toMatchObject({
        status: 400,
        type: 'SerializationException',
        body: { message: 'The request body is not a JSON object' },
      });
    });

    it('reads a body given as text, and takes no body as no input', async () => {
      expect(await request('TrentService.Decrypt', JSON.stringify({ EncryptionContext: context }))).toMatchObject({
        type: 'ValidationException',
        body: { message: 'A ciphertext blob is required' },
      });
      expect(await request('TrentService.Decrypt', undefined)).toMatchObject({
        type: 'ValidationException',
        body: { message: 'A ciphertext blob is required' },
      });
      expect(await request('TrentService.Decrypt', '{"CiphertextBlob": ""}')).toMatchObject({
        type: 'ValidationException',
      });
    });

    it('answers a target that names no service as unknown, though it is an operation’s name', async () => {
      expect(await request('Decrypt', '{}')).toMatchObject({ status: 400, type: 'UnknownOperationException' });
    });

    it('reads a body given as bytes', async () => {
      const body = new Uint8Array(Buffer.from(JSON.stringify({ EncryptionContext: context })));

      expect(await request('TrentService.Decrypt', body)).toMatchObject({
        type: 'ValidationException',
        body: { message: 'A ciphertext blob is required' },
      });
    });

    it.each([
      ['text', 'branch:ACTIVE'],
      ['null', null],
    ])('answers an encryption context that is %s as a validation error', async (_, EncryptionContext) => {
      const body = JSON.stringify({ KeyId: LOCAL_KMS_KEY_ARN, NumberOfBytes: 32, EncryptionContext });

      expect(await request('TrentService.GenerateDataKeyWithoutPlaintext', body)).toEqual({
        status: 400,
        type: 'ValidationException',
        body: { __type: 'ValidationException', message: 'An encryption context maps strings to strings' },
      });
    });

    it('answers a ciphertext it cannot open as KMS does: the type, and nothing said of why', async () => {
      const body = JSON.stringify({ CiphertextBlob: Buffer.alloc(64, 7).toString('base64') });

      expect(await request('TrentService.Decrypt', body)).toEqual({
        status: 400,
        type: 'InvalidCiphertextException',
        body: { __type: 'InvalidCiphertextException', message: '' },
      });
    });

    it('answers a ciphertext blob that is not text as a validation error', async () => {
      expect(await request('TrentService.Decrypt', '{"CiphertextBlob": 1}')).toMatchObject({
        status: 400,
        type: 'ValidationException',
        body: { message: 'A ciphertext blob is required' },
      });
    });
  });
});

describe('Class: BranchKeyIds', () => {
  const ids = new BranchKeyIds(randomBytes(32));

  it('gives each owner its own id, and never the same for a principal and a project of one name', () => {
    const all = [
      ids.of({ tenant: 'acme', owner: 'principal', principal: 'p7' }),
      ids.of({ tenant: 'acme', owner: 'project', projectId: 'p7' }),
      ids.of({ tenant: 'acme', owner: 'organisation' }),
      ids.of({ tenant: 'acme', owner: 'principal', principal: 'alice' }),
      ids.of({ tenant: 'acme', owner: 'project', projectId: 'p8' }),
      ids.of({ tenant: 'globex', owner: 'organisation' }),
    ];

    expect(new Set(all).size).toBe(all.length);
    for (const id of all) expect(id).toMatch(/^mh1-[A-Za-z0-9_-]{43}$/);
  });

  it('gives the same ids in every release: a changed derivation would lose every stored branch key', () => {
    const pinned = new BranchKeyIds(Buffer.alloc(32, 1));

    expect(pinned.of({ tenant: 'acme', owner: 'principal', principal: 'alice' })).toBe(
      'mh1-gwm8B3QsBNN386ircBHR1QQNwVNKKoMRop7YTARw03c',
    );
    expect(pinned.of({ tenant: 'acme', owner: 'project', projectId: 'p7' })).toBe(
      'mh1-H1Slz1wvPLZId1tBGexZuRB76Om5W8-CZcDIVj1VjuU',
    );
    expect(pinned.of({ tenant: 'acme', owner: 'organisation' })).toBe(
      'mh1-xKq1gU2ghuglWXtxYmY8j_lrh9wcjXivQq6yyIgGvHw',
    );
  });

  it('derives its own key from the naming key, not the naming key itself', () => {
    const namingKey = randomBytes(32);

    expect(new BranchKeyIds(namingKey).of({ tenant: 'acme', owner: 'organisation' })).toBe(
      new BranchKeyIds(Buffer.from(namingKey)).of({ tenant: 'acme', owner: 'organisation' }),
    );
  });
});

describe('Class: CachingContentCipher', () => {
  const recordContext: EncryptionContext = { tenant: 'acme', namespace: 't/acme/p/alice/note', recordId: 'r1' };
  /** A cipher that counts its decryptions and returns the ciphertext reversed. */
  const countingCipher = () => {
    const counts = { decrypt: 0 };
    const inner: ContentCipher = {
      encrypt: async (plaintext) => Uint8Array.from(plaintext).reverse(),
      decrypt: async (ciphertext) => {
        counts.decrypt += 1;
        return Uint8Array.from(ciphertext).reverse();
      },
    };
    return { inner, counts };
  };

  it('refuses a maximum age that is not positive, saying why', () => {
    const { inner } = countingCipher();

    expect(() => new CachingContentCipher({ inner, maxAgeSeconds: 0 })).toThrow(
      new RangeError('The plaintext cache needs a positive maximum age'),
    );
  });

  it('answers from memory until an entry is as old as the maximum age, however often it is read', async () => {
    // Prepare
    let now = 1_000_000;
    const { inner, counts } = countingCipher();
    const cipher = new CachingContentCipher({ inner, maxAgeSeconds: 10, now: () => now });
    const ciphertext = await cipher.encrypt(Buffer.from('hello'), recordContext);

    // Act
    now += 9_999;
    await cipher.decrypt(ciphertext, recordContext);
    const beforeExpiry = counts.decrypt;
    now += 1;
    await cipher.decrypt(ciphertext, recordContext);

    // Assess
    expect(beforeExpiry).toBe(0);
    expect(counts.decrypt).toBe(1);
  });

  it('keeps as many entries as its capacity, and drops the least recently used beyond it', async () => {
    const { inner, counts } = countingCipher();
    const cipher = new CachingContentCipher({ inner, maxAgeSeconds: 60, capacity: 2 });
    const [a, b, c] = await Promise.all(
      ['a', 'b', 'c'].map((text) => cipher.encrypt(Buffer.from(text), { ...recordContext, recordId: text })),
    );
    const read = (ciphertext: Uint8Array | undefined, recordId: string) =>
      cipher.decrypt(ciphertext as Uint8Array, { ...recordContext, recordId });

    // c evicted a; reading b makes b the most recently used, c the least
    await read(b, 'b');
    expect(counts.decrypt).toBe(0);
    await read(a, 'a');
    expect(counts.decrypt).toBe(1);
    // a came back in and evicted c, not b
    await read(b, 'b');
    expect(counts.decrypt).toBe(1);
    await read(c, 'c');
    expect(counts.decrypt).toBe(2);
  });
});

describe('Module: crypto errors', () => {
  it('answers a ciphertext refused for its context as a record that is not there', () => {
    const error = new CiphertextContextMismatchError();
    const response = errorResponse(error, 'r', KERNEL_ERROR_STATUSES);

    expect(error.code).toBe('crypto.context_mismatch');
    expect(response.statusCode).toBe(404);
    expect(JSON.parse(String(response.body)).error).toMatchObject({ code: 'not_found', message: 'Not found' });
  });
});
