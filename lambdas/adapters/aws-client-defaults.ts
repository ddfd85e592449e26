import { createHash, createHmac, createSecretKey, type Hash, type Hmac, type KeyObject } from 'node:crypto';
import type { Checksum, SourceData } from '@smithy/types';

/**
 * SHA-256 and HMAC-SHA-256 for the AWS SDK's request signing (SigV4), with byte keys held as KeyObjects.
 *
 * Why not the SDK's own: on Node 24, `createHmac` given a Buffer key first checks whether it is a KeyObject
 * and then whether it is a CryptoKey, and each check throws and catches an error inside Node — ≈ 22 µs per
 * HMAC against ≈ 4 µs with a KeyObject or a string. SigV4 computes two HMACs with byte keys on every request
 * (the credentials' fingerprint and the signature itself), so each DynamoDB call paid ≈ 35 µs of CPU for
 * nothing, in Lambda as locally. The signing key is one array for a whole day (the SDK caches it), so its
 * KeyObject is made once; a string key goes to `createHmac` as it is.
 */
export class KeyObjectSha256 implements Checksum {
  /** Keyed by the array itself: the SDK never rewrites a key array it has handed over. */
  static readonly #keyObjects = new WeakMap<Uint8Array, KeyObject>();
  readonly #key: string | KeyObject | undefined;
  #hash: Hash | Hmac;

  constructor(secret?: SourceData) {
    this.#key = secret === undefined ? undefined : KeyObjectSha256.#keyOf(secret);
    this.#hash = this.#start();
  }

  update(chunk: Uint8Array | string, encoding?: 'utf8' | 'ascii' | 'latin1'): void {
    if (typeof chunk === 'string') this.#hash.update(chunk, encoding ?? 'utf8');
    else this.#hash.update(chunk);
  }

  digest(): Promise<Uint8Array> {
    return Promise.resolve(this.#hash.digest());
  }

  reset(): void {
    this.#hash = this.#start();
  }

  #start(): Hash | Hmac {
    return this.#key === undefined ? createHash('sha256') : createHmac('sha256', this.#key);
  }

  static #keyOf(secret: SourceData): string | KeyObject {
    if (typeof secret === 'string') return secret;
    if (!ArrayBuffer.isView(secret)) return KeyObjectSha256.#keyOf(new Uint8Array(secret));
    // An empty key is the empty string's HMAC key; a KeyObject cannot be empty.
    if (secret.byteLength === 0) return '';
    const array = secret as Uint8Array;
    let keyObject = KeyObjectSha256.#keyObjects.get(array);
    if (!keyObject) {
      keyObject = createSecretKey(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
      KeyObjectSha256.#keyObjects.set(array, keyObject);
    }
    return keyObject;
  }
}

/** What every AWS SDK client of the service is built with. */
export const AWS_CLIENT_DEFAULTS = { maxAttempts: 3, sha256: KeyObjectSha256 } as const;
