import { createHash, createHmac } from 'node:crypto';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { KeyObjectSha256 } from '../../../lambdas/adapters/aws-client-defaults.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

const digestOf = async (secret: ConstructorParameters<typeof KeyObjectSha256>[0], ...chunks: Uint8Array[]) => {
  const hash = new KeyObjectSha256(secret);
  for (const chunk of chunks) hash.update(chunk);
  return hex(await hash.digest());
};

describe('KeyObjectSha256', () => {
  const data = new TextEncoder().encode('20261130T120000Z\nus-east-1/dynamodb/aws4_request');

  it('hashes without a key as SHA-256', async () => {
    expect(await digestOf(undefined, data)).toBe(createHash('sha256').update(data).digest('hex'));
  });

  it('computes the HMAC for string, byte-array, buffer-view and ArrayBuffer keys alike', async () => {
    const expected = createHmac('sha256', 'AWS4secret').update(data).digest('hex');
    const bytes = new TextEncoder().encode('AWS4secret');
    const padded = new Uint8Array(bytes.length + 6);
    padded.set(bytes, 3);
    expect(await digestOf('AWS4secret', data)).toBe(expected);
    expect(await digestOf(bytes, data)).toBe(expected);
    expect(await digestOf(padded.subarray(3, 3 + bytes.length), data)).toBe(expected);
    expect(await digestOf(bytes.buffer as ArrayBuffer, data)).toBe(expected);
    expect(await digestOf(new Uint8Array(0), data)).toBe(createHmac('sha256', '').update(data).digest('hex'));
  });

  it('gives the same HMAC each time one key array is reused, and differs for another key', async () => {
    const key = new Uint8Array(32).fill(7);
    const first = await digestOf(key, data);
    expect(await digestOf(key, data)).toBe(first);
    expect(await digestOf(new Uint8Array(32).fill(8), data)).not.toBe(first);
  });

  it('starts over on reset and takes text chunks in the encoding given', async () => {
    const hash = new KeyObjectSha256('key');
    hash.update(new TextEncoder().encode('discarded'));
    hash.reset();
    hash.update('héllo');
    hash.update('6869', 'latin1');
    expect(hex(await hash.digest())).toBe(
      createHmac('sha256', 'key').update('héllo').update('6869', 'latin1').digest('hex'),
    );
  });

  it('signs a request exactly as the SDK’s own hash does', async () => {
    const signerWith = (sha256: ConstructorParameters<typeof SignatureV4>[0]['sha256']) =>
      new SignatureV4({
        service: 'dynamodb',
        region: 'eu-west-1',
        credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
        sha256,
      });
    const request = () => ({
      method: 'POST',
      protocol: 'https:',
      hostname: 'dynamodb.eu-west-1.amazonaws.com',
      path: '/',
      headers: { host: 'dynamodb.eu-west-1.amazonaws.com', 'x-amz-target': 'DynamoDB_20120810.GetItem' },
      body: '{"TableName":"t","Key":{"pk":{"S":"a"}}}',
    });
    const signingDate = new Date('2026-11-30T12:00:00Z');
    // The SDK's default: `Hash` bound to SHA-256, as the client's runtime config builds it.
    const sdkSha256 = Hash.bind(null, 'sha256') as unknown as ConstructorParameters<typeof SignatureV4>[0]['sha256'];
    const theirs = await signerWith(sdkSha256).sign(request(), { signingDate });
    // Twice: the second signature comes from the cached signing key's KeyObject.
    for (let round = 0; round < 2; round++) {
      const ours = await signerWith(KeyObjectSha256).sign(request(), { signingDate });
      expect(ours.headers.authorization).toBe(theirs.headers.authorization);
      expect(ours.headers['x-amz-content-sha256'] ?? '').toBe(theirs.headers['x-amz-content-sha256'] ?? '');
    }
    expect(theirs.headers.authorization).toMatch(/Signature=[0-9a-f]{64}$/);
  });
});
