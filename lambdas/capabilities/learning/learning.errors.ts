import { DomainError } from '../../kernel/errors/domain-error.ts';

/**
 * A candidate was folded into a belief about another rule: a different key or agent, or the same key drafted
 * with another kind or cardinality (an extractor disagreeing with the one that created the belief). The
 * message names the fields only, never their values: rule keys and values are memory content.
 */
export class RuleMismatchError extends DomainError {
  readonly code = 'learning.rule_mismatch';
  readonly fields: readonly string[];

  constructor(fields: readonly string[]) {
    super(`The candidate rule does not match the belief it is merged into (${fields.join(', ')})`);
    this.fields = fields;
  }
}
