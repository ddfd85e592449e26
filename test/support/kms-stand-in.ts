import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the stand-in answered, as KMS's CloudTrail would show it: never a plaintext or a key. */
export interface KmsCall {
  readonly operation: string;
  readonly keyId: string | undefined;
  readonly encryptionContext: Readonly<Record<string, string>> | undefined;
  /** The error it was refused with; undefined when it succeeded. */
  readonly error: string | undefined;
}

export interface KmsStandIn {
  /** The endpoint to give a KMS client. */
  readonly url: string;
  readonly calls: readonly KmsCall[];
  /** Refuses every call with a ThrottlingException (`true`), or serves them again (`false`). */
  throttle(on: boolean): void;
  close(): Promise<void>;
}

/** A KMS error as the service returns it over AWS JSON 1.1. */
class KmsError extends Error {
  readonly type: string;
  readonly status: number;

  constructor(type: string, message: string, status = 400) {
    super(message);
    this.type = type;
    this.status = status;
  }
}

const MAGIC = Buffer.from('KSI1');
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_PLAINTEXT = 4096;
const KEY_SPEC_BYTES: Readonly<Record<string, number>> = { AES_256: 32, AES_128: 16 };

/**
 * KMS cannot run here: this is a loopback HTTP server speaking the AWS JSON 1.1 protocol (the
 * `X-Amz-Target: TrentService.<Operation>` header, JSON bodies with base64 blobs) for GenerateDataKey,
 * GenerateDataKeyWithoutPlaintext, ReEncrypt, Encrypt and Decrypt, as a real `KMSClient` pointed at it expects. It holds one AES-256 master key per key
 * ARN it was started with. A ciphertext blob binds the key id and the encryption context: it carries the key
 * ARN, then the AES-256-GCM encryption of the plaintext under that key with the ARN and the canonical
 * context as additional data, so Decrypt with another context fails with InvalidCiphertextException, a blob
 * of an unknown key (or a request for one) fails with NotFoundException, and a KeyId that is not the blob's
 * with IncorrectKeyException, as the real KMS names them. Requests must be SigV4-signed for `kms` (the
 * signature itself is not verified). It records every call.
 */
export const startKmsStandIn = async (keyArns: readonly string[]): Promise<KmsStandIn> => {
  const keys = new Map(keyArns.map((arn) => [arn, randomBytes(32)]));
  const calls: KmsCall[] = [];
  let throttled = false;

  const keyOf = (keyId: unknown): [string, Buffer] => {
    const key = typeof keyId === 'string' ? keys.get(keyId) : undefined;
    if (typeof keyId !== 'string' || !key)
      throw new KmsError('NotFoundException', `Key '${String(keyId)}' does not exist`);
    return [keyId, key];
  };

  const operations: Record<string, (input: Record<string, unknown>) => Record<string, unknown>> = {
    GenerateDataKey: (input) => {
      const [arn, key] = keyOf(input.KeyId);
      const context = contextOf(input.EncryptionContext);
      const bytes = dataKeyLength(input);
      const plaintext = randomBytes(bytes);
      return {
        KeyId: arn,
        Plaintext: plaintext.toString('base64'),
        CiphertextBlob: seal(arn, key, plaintext, context).toString('base64'),
      };
    },
    // What the branch key store calls to create a branch key: a key it never sees in clear, then the same key
    // under the active item's context.
    GenerateDataKeyWithoutPlaintext: (input) => {
      const [arn, key] = keyOf(input.KeyId);
      return {
        KeyId: arn,
        CiphertextBlob: seal(arn, key, randomBytes(dataKeyLength(input)), contextOf(input.EncryptionContext)).toString(
          'base64',
        ),
      };
    },
    ReEncrypt: (input) => {
      const source = unpack(blobOf(input.CiphertextBlob, 'CiphertextBlob'));
      const sourceKey = keys.get(source.arn);
      if (!sourceKey) throw new KmsError('NotFoundException', `Key '${source.arn}' does not exist`);
      const [arn, key] = keyOf(input.DestinationKeyId);
      const decipher = createDecipheriv('aes-256-gcm', sourceKey, source.iv);
      decipher.setAAD(additionalData(source.arn, contextOf(input.SourceEncryptionContext)));
      decipher.setAuthTag(source.tag);
      let plaintext: Buffer;
      try {
        plaintext = Buffer.concat([decipher.update(source.body), decipher.final()]);
      } catch {
        throw new KmsError('InvalidCiphertextException', '');
      }
      return {
        KeyId: arn,
        SourceKeyId: source.arn,
        CiphertextBlob: seal(arn, key, plaintext, contextOf(input.DestinationEncryptionContext)).toString('base64'),
      };
    },
    Encrypt: (input) => {
      const [arn, key] = keyOf(input.KeyId);
      const plaintext = blobOf(input.Plaintext, 'Plaintext');
      if (plaintext.length < 1 || plaintext.length > MAX_PLAINTEXT) {
        throw new KmsError('ValidationException', `Plaintext must be 1 to ${MAX_PLAINTEXT} bytes`);
      }
      return {
        KeyId: arn,
        CiphertextBlob: seal(arn, key, plaintext, contextOf(input.EncryptionContext)).toString('base64'),
        EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
      };
    },
    Decrypt: (input) => {
      const { arn, iv, tag, body } = unpack(blobOf(input.CiphertextBlob, 'CiphertextBlob'));
      const key = keys.get(arn);
      if (!key) throw new KmsError('NotFoundException', `Key '${arn}' does not exist`);
      if (input.KeyId !== undefined) {
        keyOf(input.KeyId);
        if (input.KeyId !== arn) {
          throw new KmsError(
            'IncorrectKeyException',
            'The key ID in the request does not identify the key that encrypted the ciphertext',
          );
        }
      }
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(additionalData(arn, contextOf(input.EncryptionContext)));
      decipher.setAuthTag(tag);
      let plaintext: Buffer;
      try {
        plaintext = Buffer.concat([decipher.update(body), decipher.final()]);
      } catch {
        // Another context, or altered bytes: KMS does not say which.
        throw new KmsError('InvalidCiphertextException', '');
      }
      return { KeyId: arn, Plaintext: plaintext.toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
    },
  };

  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const operation = target.startsWith('TrentService.') ? target.slice('TrentService.'.length) : target;
    let input: Record<string, unknown> = {};
    try {
      const text = await bodyOf(request);
      if (request.method !== 'POST') throw new KmsError('UnknownOperationException', 'KMS takes POST only', 404);
      if (!String(request.headers['content-type'] ?? '').startsWith('application/x-amz-json-1.1')) {
        throw new KmsError('UnrecognizedClientException', 'Expected application/x-amz-json-1.1');
      }
      if (
        !/^AWS4-HMAC-SHA256 Credential=[^/]+\/\d{8}\/[^/]+\/kms\/aws4_request/.test(
          String(request.headers.authorization),
        )
      ) {
        throw new KmsError('MissingAuthenticationTokenException', 'Request is missing a SigV4 signature for kms');
      }
      try {
        input = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        throw new KmsError('SerializationException', 'The request body is not JSON');
      }
      const handler = operations[operation];
      if (!target.startsWith('TrentService.') || !handler) {
        throw new KmsError('UnknownOperationException', `The stand-in does not serve ${target || 'this request'}`);
      }
      if (throttled) throw new KmsError('ThrottlingException', 'Rate exceeded');
      const output = handler(input);
      calls.push(callOf(operation, input, undefined));
      send(response, 200, output);
    } catch (error) {
      const refusal =
        error instanceof KmsError ? error : new KmsError('KMSInternalException', 'The stand-in failed', 500);
      calls.push(callOf(operation, input, refusal.type));
      response.setHeader('x-amzn-ErrorType', refusal.type);
      send(response, refusal.status, { __type: refusal.type, message: refusal.message });
    }
  };

  const server = createServer((request, response) => {
    void answer(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    throttle: (on) => {
      throttled = on;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // The SDK keeps its connections alive; they would hold the server open.
        server.closeAllConnections();
      }),
  };
};

const send = (response: ServerResponse, status: number, body: Record<string, unknown>) => {
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-RequestId': randomUUID() });
  response.end(JSON.stringify(body));
};

const bodyOf = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

/** A ReEncrypt is recorded with the key and context it encrypts to. */
const callOf = (operation: string, input: Record<string, unknown>, error: string | undefined): KmsCall => {
  const keyId = input.KeyId ?? input.DestinationKeyId;
  const context = input.EncryptionContext ?? input.DestinationEncryptionContext;
  return {
    operation,
    keyId: typeof keyId === 'string' ? keyId : undefined,
    encryptionContext: context && typeof context === 'object' ? (context as Record<string, string>) : undefined,
    error,
  };
};

const contextOf = (value: unknown): Record<string, string> => {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Object.values(value).some((entry) => typeof entry !== 'string')) {
    throw new KmsError('ValidationException', 'EncryptionContext must map strings to strings');
  }
  return value as Record<string, string>;
};

/** The context as KMS binds it: the same pairs in any order are the same context. */
const additionalData = (arn: string, context: Record<string, string>): Buffer =>
  Buffer.from(JSON.stringify([arn, Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]));

const blobOf = (value: unknown, field: string): Buffer => {
  if (typeof value !== 'string' || value.length === 0)
    throw new KmsError('ValidationException', `${field} is required`);
  return Buffer.from(value, 'base64');
};

const dataKeyLength = (input: Record<string, unknown>): number => {
  const { NumberOfBytes: count, KeySpec: spec } = input;
  if ((count === undefined) === (spec === undefined)) {
    throw new KmsError('ValidationException', 'Specify either KeySpec or NumberOfBytes, but not both');
  }
  if (spec !== undefined) {
    const bytes = KEY_SPEC_BYTES[String(spec)];
    if (bytes === undefined) throw new KmsError('ValidationException', `Unknown KeySpec ${String(spec)}`);
    return bytes;
  }
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 1024) {
    throw new KmsError('ValidationException', 'NumberOfBytes must be between 1 and 1024');
  }
  return count;
};

/** `KSI1`, the ARN's length (2 bytes) and the ARN, then the IV, the GCM tag and the encrypted bytes. */
const seal = (arn: string, key: Buffer, plaintext: Buffer, context: Record<string, string>): Buffer => {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(additionalData(arn, context));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const arnBytes = Buffer.from(arn, 'utf8');
  const length = Buffer.alloc(2);
  length.writeUInt16BE(arnBytes.length);
  return Buffer.concat([MAGIC, length, arnBytes, iv, cipher.getAuthTag(), body]);
};

const unpack = (blob: Buffer) => {
  const invalid = () => new KmsError('InvalidCiphertextException', '');
  if (blob.length < MAGIC.length + 2 || !blob.subarray(0, MAGIC.length).equals(MAGIC)) throw invalid();
  const arnLength = blob.readUInt16BE(MAGIC.length);
  const arnEnd = MAGIC.length + 2 + arnLength;
  if (blob.length < arnEnd + IV_BYTES + TAG_BYTES) throw invalid();
  return {
    arn: blob.subarray(MAGIC.length + 2, arnEnd).toString('utf8'),
    iv: blob.subarray(arnEnd, arnEnd + IV_BYTES),
    tag: blob.subarray(arnEnd + IV_BYTES, arnEnd + IV_BYTES + TAG_BYTES),
    body: blob.subarray(arnEnd + IV_BYTES + TAG_BYTES),
  };
};
