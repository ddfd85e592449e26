import { randomBytes } from 'node:crypto';
import {
  DecryptCommand,
  EncryptCommand,
  GenerateDataKeyWithoutPlaintextCommand,
  InvalidCiphertextException,
  KMSClient,
  NotFoundException,
  ReEncryptCommand,
} from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import { LOCAL_KMS_KEY_ARN, localKmsClientConfig } from '../../../lambdas/adapters/crypto/local-kms.ts';

/** A real KMS client whose requests the local KMS answers in process (no socket: the endpoint is never reached). */
const clientOver = (keyFileBytes: Uint8Array) =>
  new KMSClient({ ...localKmsClientConfig(keyFileBytes), maxAttempts: 1 });

const context = { 'branch-key-id': 'b1', type: 'branch:ACTIVE', tablename: 'store' };

describe('Class: LocalKms', () => {
  const keyFile = randomBytes(32);
  const client = clientOver(keyFile);

  const generated = () =>
    client.send(
      new GenerateDataKeyWithoutPlaintextCommand({
        KeyId: LOCAL_KMS_KEY_ARN,
        NumberOfBytes: 32,
        EncryptionContext: context,
      }),
    );

  describe('Method: handle (GenerateDataKeyWithoutPlaintext, then Decrypt)', () => {
    it('generates a 32-byte key it alone can open, under the same context in any order', async () => {
      // Prepare
      const { CiphertextBlob, KeyId } = await generated();

      // Act
      const { Plaintext } = await client.send(
        new DecryptCommand({
          KeyId: LOCAL_KMS_KEY_ARN,
          CiphertextBlob,
          EncryptionContext: { tablename: 'store', type: 'branch:ACTIVE', 'branch-key-id': 'b1' },
        }),
      );

      // Assess
      expect(KeyId).toBe(LOCAL_KMS_KEY_ARN);
      expect(Plaintext).toHaveLength(32);
      expect(Buffer.from(CiphertextBlob as Uint8Array).includes(Buffer.from(Plaintext as Uint8Array))).toBe(false);
    });

    it('opens after a restart what it made before: its key comes from the key file', async () => {
      // Prepare
      const { CiphertextBlob } = await generated();
      const restarted = clientOver(Buffer.from(keyFile));

      // Act
      const opened = restarted.send(new DecryptCommand({ CiphertextBlob, EncryptionContext: context }));

      // Assess
      await expect(opened).resolves.toHaveProperty('Plaintext');
    });

    it.each([
      ['another context', { EncryptionContext: { ...context, type: 'branch:version:x' } }],
      ['no context', { EncryptionContext: undefined }],
    ])('refuses a Decrypt under %s with InvalidCiphertextException', async (_, change) => {
      // Prepare
      const { CiphertextBlob } = await generated();

      // Act
      const opening = client.send(new DecryptCommand({ CiphertextBlob, ...change }));

      // Assess
      await expect(opening).rejects.toBeInstanceOf(InvalidCiphertextException);
    });

    it('refuses altered bytes, and a blob of another key file, with InvalidCiphertextException', async () => {
      // Prepare
      const { CiphertextBlob } = await generated();
      const altered = Buffer.from(CiphertextBlob as Uint8Array);
      altered[altered.length - 1] = (altered[altered.length - 1] as number) ^ 0x01;
      const { CiphertextBlob: elsewhere } = await clientOver(randomBytes(32)).send(
        new GenerateDataKeyWithoutPlaintextCommand({
          KeyId: LOCAL_KMS_KEY_ARN,
          NumberOfBytes: 32,
          EncryptionContext: context,
        }),
      );

      // Act
      const openings = [altered, elsewhere].map((blob) =>
        client.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context })),
      );

      // Assess
      for (const opening of openings) await expect(opening).rejects.toBeInstanceOf(InvalidCiphertextException);
    });

    it('refuses another key with NotFoundException, and operations the key store does not call with UnknownOperationException', async () => {
      // Act
      const refusals = [
        client.send(
          new GenerateDataKeyWithoutPlaintextCommand({
            KeyId: 'arn:aws:kms:local:000000000000:key/another',
            NumberOfBytes: 32,
          }),
        ),
        client.send(new EncryptCommand({ KeyId: LOCAL_KMS_KEY_ARN, Plaintext: Buffer.from('k') })),
      ];

      // Assess
      await expect(refusals[0]).rejects.toBeInstanceOf(NotFoundException);
      await expect(refusals[1]).rejects.toMatchObject({ name: 'UnknownOperationException', $fault: 'client' });
    });
  });

  describe('Method: handle (ReEncrypt)', () => {
    it('moves a key to another context: the same key opens there, and only there', async () => {
      // Prepare
      const { CiphertextBlob } = await generated();
      const active = { ...context, version: 'branch:version:v1' };

      // Act
      const moved = await client.send(
        new ReEncryptCommand({
          SourceKeyId: LOCAL_KMS_KEY_ARN,
          SourceEncryptionContext: context,
          CiphertextBlob,
          DestinationKeyId: LOCAL_KMS_KEY_ARN,
          DestinationEncryptionContext: active,
        }),
      );

      // Assess
      const [before, after] = await Promise.all([
        client.send(new DecryptCommand({ CiphertextBlob, EncryptionContext: context })),
        client.send(new DecryptCommand({ CiphertextBlob: moved.CiphertextBlob, EncryptionContext: active })),
      ]);
      expect(Buffer.from(after.Plaintext as Uint8Array).equals(Buffer.from(before.Plaintext as Uint8Array))).toBe(true);
      await expect(
        client.send(new DecryptCommand({ CiphertextBlob: moved.CiphertextBlob, EncryptionContext: context })),
      ).rejects.toBeInstanceOf(InvalidCiphertextException);
    });
  });
});
