import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import type { HttpHandlerOptions, HttpRequest, HttpResponse, RequestHandler } from '@smithy/types';

/** The one key the local KMS holds: local mode's stand-in for the tenant's customer-managed key. */
export const LOCAL_KMS_KEY_ARN = 'arn:aws:kms:local:000000000000:key/memory-hub-local';

/** A KMS error, as the service answers it over AWS JSON 1.1 (the SDK turns the type into its exception class). */
class LocalKmsError extends Error {
  readonly type: string;

  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

const MAGIC = Buffer.from('MHK1');
const IV_BYTES = 12;
const TAG_BYTES = 16;

type Operation = (input: Record<string, unknown>) => Record<string, unknown>;

/**
 * KMS for local mode, in process: the operations the branch key store makes — GenerateDataKeyWithoutPlaintext
 * and ReEncrypt when a branch key is created (or versioned), Decrypt when one is used — answered to a real
 * `KMSClient` through its request handler, without a socket (as the embedded engine answers the DynamoDB
 * client). Everything above the transport (serialisation, retries, error parsing) is the SDK's own, so the
 * branch key store and the hierarchical keyring run exactly as against KMS.
 *
 * It holds one AES-256 key, derived (HKDF) from the local key file, under `LOCAL_KMS_KEY_ARN`. A ciphertext blob
 * is `MHK1`, the IV, the GCM tag and the encrypted bytes, with the key ARN and the encryption context as
 * additional data: a Decrypt under another context, or of altered bytes, fails with InvalidCiphertextException,
 * as KMS's does. Requests for another key fail with NotFoundException; other operations with
 * UnknownOperationException.
 */
export class LocalKms implements RequestHandler<HttpRequest, HttpResponse, HttpHandlerOptions> {
  readonly metadata = { handlerProtocol: 'http/1.1' };
  readonly #key: Buffer;
  readonly #operations: Readonly<Record<string, Operation>>;

  /** @param keyFileBytes the local key file's 32 bytes (`loadOrCreateLocalKey`) */
  constructor(keyFileBytes: Uint8Array) {
    // Its own key, not the file's bytes themselves: those remain the raw key of what local mode wrote before.
    this.#key = Buffer.from(hkdfSync('sha256', keyFileBytes, Buffer.alloc(0), 'memory-hub local KMS key v1', 32));
    this.#operations = {
      GenerateDataKeyWithoutPlaintext: (input) => {
        this.#assertHeld(input.KeyId);
        return {
          KeyId: LOCAL_KMS_KEY_ARN,
          CiphertextBlob: this.#seal(randomBytes(dataKeyLength(input)), contextOf(input.EncryptionContext)),
        };
      },
      Decrypt: (input) => {
        if (input.KeyId !== undefined) this.#assertHeld(input.KeyId);
        const plaintext = this.#open(blobOf(input.CiphertextBlob), contextOf(input.EncryptionContext));
        return { KeyId: LOCAL_KMS_KEY_ARN, Plaintext: plaintext, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
      },
      ReEncrypt: (input) => {
        if (input.SourceKeyId !== undefined) this.#assertHeld(input.SourceKeyId);
        this.#assertHeld(input.DestinationKeyId);
        const plaintext = this.#open(blobOf(input.CiphertextBlob), contextOf(input.SourceEncryptionContext));
        return {
          KeyId: LOCAL_KMS_KEY_ARN,
          SourceKeyId: LOCAL_KMS_KEY_ARN,
          CiphertextBlob: this.#seal(plaintext, contextOf(input.DestinationEncryptionContext)),
          SourceEncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
          DestinationEncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
        };
      },
    };
  }

  async handle(request: HttpRequest): Promise<{ response: HttpResponse }> {
    const target = String(request.headers['x-amz-target'] ?? '');
    const operation = this.#operations[target.replace(/^TrentService\./, '')];
    try {
      if (!target.startsWith('TrentService.') || !operation) {
        throw new LocalKmsError('UnknownOperationException', 'The local KMS serves only what the key store calls');
      }
      return answer(200, encodeBlobs(operation(parseBody(request.body))));
    } catch (error) {
      if (!(error instanceof LocalKmsError)) throw error;
      return answer(400, { __type: error.type, message: error.message }, error.type);
    }
  }

  updateHttpClientConfig(): void {}

  httpHandlerConfigs(): Record<string, never> {
    return {};
  }

  destroy(): void {}

  /** Refuses a request naming a key other than the one it holds. */
  #assertHeld(keyId: unknown): void {
    if (keyId !== LOCAL_KMS_KEY_ARN) throw new LocalKmsError('NotFoundException', 'The local KMS holds no such key');
  }

  #seal(plaintext: Buffer, context: Record<string, string>): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(additionalData(context));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([MAGIC, iv, cipher.getAuthTag(), body]);
  }

  #open(blob: Buffer, context: Record<string, string>): Buffer {
    const invalid = () => new LocalKmsError('InvalidCiphertextException', '');
    if (blob.length < MAGIC.length + IV_BYTES + TAG_BYTES || !blob.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw invalid();
    }
    const ivEnd = MAGIC.length + IV_BYTES;
    const decipher = createDecipheriv('aes-256-gcm', this.#key, blob.subarray(MAGIC.length, ivEnd));
    decipher.setAAD(additionalData(context));
    decipher.setAuthTag(blob.subarray(ivEnd, ivEnd + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(blob.subarray(ivEnd + TAG_BYTES)), decipher.final()]);
    } catch {
      // Another context, or altered bytes: KMS does not say which.
      throw invalid();
    }
  }
}

/**
 * A `KMSClient`'s configuration with the local KMS as its transport: the endpoint is never reached, the
 * credentials are never checked, and the region is only what the SDK requires.
 */
export const localKmsClientConfig = (keyFileBytes: Uint8Array) => ({
  region: 'local',
  endpoint: 'http://kms.local.invalid',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  requestHandler: new LocalKms(keyFileBytes),
});

const answer = (statusCode: number, body: Record<string, unknown>, errorType?: string) => ({
  response: {
    statusCode,
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amzn-requestid': randomUUID(),
      ...(errorType && { 'x-amzn-errortype': errorType }),
    },
    body: new Uint8Array(Buffer.from(JSON.stringify(body), 'utf8')),
  } as HttpResponse,
});

/**
 * A request or response body as the SDK serialised it, as text. The SDK's JSON body is a Uint8Array subclass that
 * warns when read as text: its bytes are read through a plain view.
 */
export const sdkBodyText = (body: unknown): string =>
  typeof body === 'string'
    ? body
    : body instanceof Uint8Array
      ? Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')
      : '';

const parseBody = (body: unknown): Record<string, unknown> => {
  const text = sdkBodyText(body);
  try {
    const parsed: unknown = text ? JSON.parse(text) : {};
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new LocalKmsError('SerializationException', 'The request body is not a JSON object');
};

/** Blobs travel base64-encoded in AWS JSON. */
const encodeBlobs = (output: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(output).map(([name, value]) => [name, Buffer.isBuffer(value) ? value.toString('base64') : value]),
  );

const blobOf = (value: unknown): Buffer => {
  if (typeof value !== 'string' || value.length === 0) {
    throw new LocalKmsError('ValidationException', 'A ciphertext blob is required');
  }
  return Buffer.from(value, 'base64');
};

const contextOf = (value: unknown): Record<string, string> => {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Object.values(value).some((entry) => typeof entry !== 'string')) {
    throw new LocalKmsError('ValidationException', 'An encryption context maps strings to strings');
  }
  return value as Record<string, string>;
};

const dataKeyLength = (input: Record<string, unknown>): number => {
  if (input.KeySpec === 'AES_256' && input.NumberOfBytes === undefined) return 32;
  if (input.KeySpec === 'AES_128' && input.NumberOfBytes === undefined) return 16;
  const count = input.NumberOfBytes;
  if (
    input.KeySpec !== undefined ||
    typeof count !== 'number' ||
    !Number.isInteger(count) ||
    count < 1 ||
    count > 1024
  ) {
    throw new LocalKmsError('ValidationException', 'Give either a KeySpec or a NumberOfBytes from 1 to 1024');
  }
  return count;
};

/** The context as KMS binds it: the same pairs in any order are the same context. */
const additionalData = (context: Record<string, string>): Buffer =>
  Buffer.from(
    JSON.stringify([LOCAL_KMS_KEY_ARN, Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]),
  );
