/**
 * Binds a ciphertext to where it belongs. Decryption is refused unless the ciphertext was made for exactly
 * this context, so a ciphertext copied into another tenant, namespace or record never decrypts there.
 */
export interface EncryptionContext {
  readonly tenant: string;
  readonly namespace: string;
  readonly recordId: string;
}

/** Envelope encryption of record content before it reaches storage. */
export interface ContentCipher {
  encrypt(plaintext: Uint8Array, context: EncryptionContext): Promise<Uint8Array>;
  /** Throws CiphertextContextMismatchError when `expected` is not the context the ciphertext was made for. */
  decrypt(ciphertext: Uint8Array, expected: EncryptionContext): Promise<Uint8Array>;
}
