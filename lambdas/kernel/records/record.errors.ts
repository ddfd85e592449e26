import { DomainError } from '../errors/domain-error.ts';

/** Another writer committed the revision this one meant to create: the optimistic-concurrency loss. */
export class RevisionConflictError extends DomainError {
  readonly code = 'record.revision_conflict';

  constructor(options?: ErrorOptions) {
    super('The revision already exists', options);
  }
}

/**
 * The write that work was waiting on (`AppendOptions.after`) did not commit this request's revision, so the
 * work wrote nothing. Never reaches a caller: whoever made the work redoes or abandons it.
 */
export class RecordNotCommittedError extends DomainError {
  readonly code = 'record.not_committed';

  constructor(options?: ErrorOptions) {
    super('The record this write refers to was not committed by this request', options);
  }
}

/** An update or delete without If-Match: the caller must say which revision it read. */
export class PreconditionRequiredError extends DomainError {
  readonly code = 'record.precondition_required';

  constructor() {
    super('This request must carry an If-Match header with the ETag of the revision it changes');
  }
}

/** The If-Match named a revision that is no longer the head; `currentEtag` tells the caller which is. */
export class PreconditionFailedError extends DomainError {
  readonly code = 'record.precondition_failed';
  /** Absent when the record does not exist (an If-Match on a create can only be stale). */
  readonly currentEtag: string | undefined;

  constructor(currentEtag: string | undefined, options?: ErrorOptions) {
    super(
      currentEtag === undefined
        ? 'The record does not exist, so no ETag matches; send the request without If-Match to create it'
        : 'The record has changed since the given ETag; read it again and retry',
      options,
    );
    this.currentEtag = currentEtag;
  }
}

/** A list cursor that this service did not issue for this listing. */
export class InvalidCursorError extends DomainError {
  readonly code = 'validation.invalid_cursor';

  constructor() {
    super('The cursor is not valid for this listing');
  }
}

/** The same Idempotency-Key was sent with a different request. */
export class IdempotencyKeyReusedError extends DomainError {
  readonly code = 'idempotency.key_reused';

  constructor() {
    super('This Idempotency-Key was already used for a different request');
  }
}
