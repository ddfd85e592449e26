import type * as EncryptionSdkModule from '@aws-crypto/client-node';

/** The AWS Encryption SDK's module (`@aws-crypto/client-node`), once loaded. */
export type EncryptionSdk = typeof EncryptionSdkModule;

let loading: Promise<EncryptionSdk> | undefined;

/**
 * The Encryption SDK, loaded once. It takes tens of milliseconds of CPU to evaluate, so no module of a Lambda
 * bundle imports it statically (type imports only; local mode's `local-key-file.ts` does): esbuild then keeps
 * it a lazily evaluated part of the bundle, and its evaluation starts right after the current turn of init
 * (below) instead of inside it — while init's or the first request's first network call is in flight — and
 * the first encryption or decryption awaits it.
 */
export const loadEncryptionSdk = (): Promise<EncryptionSdk> => {
  loading ??= import('@aws-crypto/client-node');
  return loading;
};

// A failure here is not lost: the first use awaits the same promise and meets it.
setImmediate(() => loadEncryptionSdk().catch(() => undefined));
