import {
  AlgorithmSuiteIdentifier,
  buildClient,
  CommitmentPolicy,
  KeyringNode,
  NodeDefaultCryptographicMaterialsManager,
  type NodeMaterialsManager,
} from '@aws-crypto/client-node';
import type { ContentCipher, EncryptionContext } from '../../kernel/crypto/content-cipher.port.ts';
import { CiphertextContextMismatchError } from '../../kernel/crypto/crypto.errors.ts';
import { ServiceUnavailableError } from '../../kernel/errors/domain-error.ts';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';
import { translateAwsError } from '../aws-service-errors.ts';

const { encrypt, decrypt } = buildClient(CommitmentPolicy.REQUIRE_ENCRYPT_REQUIRE_DECRYPT);

/**
 * Key commitment without the ECDSA signature suite: the same service writes and reads every ciphertext,
 * so a signature would prove nothing a reader does not already trust, and it costs milliseconds per call.
 */
const SUITE = AlgorithmSuiteIdentifier.ALG_AES256_GCM_IV12_TAG16_HKDF_SHA512_COMMIT_KEY;

/**
 * Envelope encryption with the AWS Encryption SDK over whichever keyring (or materials manager) was wired:
 * KMS with the tenant's customer-managed key in AWS, a raw AES key from the local key file locally.
 */
export class EncryptionSdkCipher implements ContentCipher {
  readonly #materials: NodeMaterialsManager;
  readonly #metrics: Metrics;

  constructor(options: { keys: KeyringNode | NodeMaterialsManager; metrics: Metrics }) {
    if (!options.keys) throw new TypeError('EncryptionSdkCipher needs a keyring: content is encrypted or not stored');
    this.#materials =
      options.keys instanceof KeyringNode ? new NodeDefaultCryptographicMaterialsManager(options.keys) : options.keys;
    this.#metrics = options.metrics;
  }

  async encrypt(plaintext: Uint8Array, context: EncryptionContext): Promise<Uint8Array> {
    this.#metrics.keyOperation('generate-data-key');
    try {
      const { result } = await encrypt(this.#materials, plaintext, {
        encryptionContext: toSdkContext(context),
        suiteId: SUITE,
      });
      return result;
    } catch (error) {
      // A throttled or unreachable key service is a 503 the caller may retry; nothing was stored.
      throw translateAwsError(error);
    }
  }

  async decrypt(ciphertext: Uint8Array, expected: EncryptionContext): Promise<Uint8Array> {
    const guarded = expectingContext(this.#materials, toSdkContext(expected));
    let plaintext: Uint8Array;
    try {
      ({ plaintext } = await decrypt(guarded, ciphertext));
    } catch (error) {
      if (error instanceof CiphertextContextMismatchError) throw error;
      // A throttled or unreachable key service is not a verdict on the ciphertext: the caller may retry. (KMS
      // materials say so themselves, with a ServiceUnavailable that passes through here unchanged.)
      const translated = translateAwsError(error);
      if (translated instanceof ServiceUnavailableError) throw translated;
      // A ciphertext the keyring cannot open (another key, tampered bytes) is refused like a foreign one.
      throw new CiphertextContextMismatchError({ cause: error });
    }
    this.#metrics.keyOperation('decrypt-data-key');
    return plaintext;
  }
}

const toSdkContext = (context: EncryptionContext): Record<string, string> => ({
  'memory-hub:tenant': context.tenant,
  'memory-hub:namespace': context.namespace,
  'memory-hub:record': context.recordId,
});

/**
 * Wraps the materials manager so that the message header's encryption context is compared with the one
 * expected before any data key is unwrapped: a ciphertext copied to another record is refused, not opened.
 */
const expectingContext = (inner: NodeMaterialsManager, expected: Record<string, string>): NodeMaterialsManager => ({
  getEncryptionMaterials: (request) => inner.getEncryptionMaterials(request),
  decryptMaterials: (request) => {
    const actual = request.encryptionContext;
    const same =
      Object.keys(actual).length === Object.keys(expected).length &&
      Object.entries(expected).every(([key, value]) => actual[key] === value);
    if (!same) return Promise.reject(new CiphertextContextMismatchError());
    return inner.decryptMaterials(request);
  },
});
