import type { KeyringNode, NodeMaterialsManager } from '@aws-crypto/client-node';
import type { ContentCipher, EncryptionContext } from '../../kernel/crypto/content-cipher.port.ts';
import { CiphertextContextMismatchError } from '../../kernel/crypto/crypto.errors.ts';
import { ServiceUnavailableError } from '../../kernel/errors/domain-error.ts';
import { translateAwsError } from '../aws-service-errors.ts';
import { leaveContextOut, putContextBack } from './context-left-out.ts';
import { type EncryptionSdk, loadEncryptionSdk } from './encryption-sdk.ts';

/** The encryption context's keys in every message header (and so in the branch key supplier's input). */
export const SDK_CONTEXT_KEYS = {
  tenant: 'memory-hub:tenant',
  namespace: 'memory-hub:namespace',
  record: 'memory-hub:record',
} as const;

/** The keys a cipher encrypts and decrypts with, when they need more than a keyring (see `HierarchicalKeys`). */
export interface CipherKeys {
  /** The materials manager every message goes through; it may take a while the first time (the SDK loads lazily). */
  materials(): Promise<NodeMaterialsManager>;
  /**
   * For keys made on first use: makes the key the context's scope is encrypted under if it does not exist yet.
   * True when encrypting again may succeed: the key was missing when `failure` happened and is there now (made
   * here, or by another process since); false when `failure` was not for want of the key.
   */
  createMissingKey?(context: EncryptionContext, failure: unknown): Promise<boolean>;
}

/**
 * Envelope encryption with the AWS Encryption SDK over whichever keys were wired: in both modes the KMS
 * hierarchical keyring (a branch key per scope, `HierarchicalKeys`); a bare keyring for tests and tools.
 */
export class EncryptionSdkCipher implements ContentCipher {
  readonly #keys: CipherKeys;
  #client: ReturnType<EncryptionSdk['buildClient']> | undefined;

  constructor(options: { keys: CipherKeys | KeyringNode }) {
    if (!options.keys) throw new TypeError('EncryptionSdkCipher needs a keyring: content is encrypted or not stored');
    this.#keys = isCipherKeys(options.keys) ? options.keys : bareKeys(options.keys);
  }

  async encrypt(plaintext: Uint8Array, context: EncryptionContext): Promise<Uint8Array> {
    try {
      return await this.#encrypt(plaintext, context);
    } catch (error) {
      // The scope's first write anywhere: its key is made, then the message encrypted under it.
      const created = await this.#keys.createMissingKey?.(context, error).catch((failure: unknown) => {
        throw translateAwsError(failure);
      });
      // A throttled or unreachable key service is a 503 the caller may retry; nothing was stored.
      if (!created) throw translateAwsError(error);
    }
    try {
      return await this.#encrypt(plaintext, context);
    } catch (error) {
      throw translateAwsError(error);
    }
  }

  async decrypt(ciphertext: Uint8Array, expected: EncryptionContext): Promise<Uint8Array> {
    const { decrypt } = await this.#sdkClient();
    const sdkContext = toSdkContext(expected);
    const guarded = expectingContext(await this.#keys.materials(), sdkContext);
    try {
      const { plaintext } = await decrypt(guarded, putContextBack(ciphertext, sdkContext));
      return plaintext;
    } catch (error) {
      if (error instanceof CiphertextContextMismatchError) throw error;
      // A throttled or unreachable key service is not a verdict on the ciphertext: the caller may retry. (The
      // keys say so themselves, with a ServiceUnavailable that passes through here unchanged.)
      const translated = translateAwsError(error);
      if (translated instanceof ServiceUnavailableError) throw translated;
      // A ciphertext the keys cannot open (another key, tampered bytes, a destroyed key) is refused like a foreign one.
      throw new CiphertextContextMismatchError({ cause: error });
    }
  }

  async #encrypt(plaintext: Uint8Array, context: EncryptionContext): Promise<Uint8Array> {
    const sdk = await loadEncryptionSdk();
    const { encrypt } = await this.#sdkClient();
    const encryptionContext = toSdkContext(context);
    const { result } = await encrypt(await this.#keys.materials(), plaintext, {
      encryptionContext,
      // Key commitment without the ECDSA signature suite: the same service writes and reads every ciphertext,
      // so a signature would prove nothing a reader does not already trust, and it costs milliseconds per call.
      suiteId: sdk.AlgorithmSuiteIdentifier.ALG_AES256_GCM_IV12_TAG16_HKDF_SHA512_COMMIT_KEY,
    });
    // Every reader supplies the context it expects: the header's clear copy is not stored (context-left-out.ts).
    return leaveContextOut(result, encryptionContext);
  }

  async #sdkClient(): Promise<ReturnType<EncryptionSdk['buildClient']>> {
    if (!this.#client) {
      const sdk = await loadEncryptionSdk();
      // Every message this service writes wraps its data key once; a planted message with many wrapped copies
      // would make the per-record keyring of old messages call KMS for each.
      this.#client = sdk.buildClient({
        commitmentPolicy: sdk.CommitmentPolicy.REQUIRE_ENCRYPT_REQUIRE_DECRYPT,
        maxEncryptedDataKeys: 1,
      });
    }
    return this.#client;
  }
}

export const toSdkContext = (context: EncryptionContext): Record<string, string> => ({
  [SDK_CONTEXT_KEYS.tenant]: context.tenant,
  [SDK_CONTEXT_KEYS.namespace]: context.namespace,
  [SDK_CONTEXT_KEYS.record]: context.recordId,
});

const isCipherKeys = (keys: CipherKeys | KeyringNode): keys is CipherKeys =>
  typeof (keys as Partial<CipherKeys>).materials === 'function';

/** A bare keyring, under the SDK's default materials manager. */
const bareKeys = (keyring: KeyringNode): CipherKeys => {
  let materials: NodeMaterialsManager | undefined;
  return {
    materials: async () => {
      if (!materials) {
        const sdk = await loadEncryptionSdk();
        materials = new sdk.NodeDefaultCryptographicMaterialsManager(keyring);
      }
      return materials;
    },
  };
};

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
