import { DomainError } from '../errors/domain-error.ts';
import type { SensitiveContentReason } from './protection.schema.ts';

/**
 * A long-term write held personal identifiers or secrets and was refused. `reasons` says which kinds,
 * sorted and de-duplicated; neither they nor the message ever carry the value that matched.
 */
export class SensitiveContentRefusedError extends DomainError {
  readonly code = 'protection.sensitive_content';
  readonly reasons: readonly SensitiveContentReason[];

  constructor(reasons: readonly SensitiveContentReason[]) {
    super('The content holds personal identifiers or secrets and was not stored');
    this.reasons = Object.freeze([...reasons]);
  }
}
