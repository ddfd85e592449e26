import { DomainError } from '../errors/domain-error.ts';

/** A ciphertext presented for a context it was not made for: refused, never decrypted. */
export class CiphertextContextMismatchError extends DomainError {
  readonly code = 'crypto.context_mismatch';

  constructor(options?: ErrorOptions) {
    super('The ciphertext does not belong to this record', options);
  }
}
