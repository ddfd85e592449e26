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

/**
 * A change to an existing record that does not say which revision it was computed from. Only the HTTP layer
 * knows how a caller names a revision (If-Match); the core refuses a replacement that names none.
 */
export class ExpectedRevisionRequiredError extends DomainError {
  readonly code = 'record.precondition_required';

  constructor() {
    super('This record exists: replacing it requires the revision it replaces');
  }
}

/**
 * The caller's revision is no longer the record's latest: another writer appended after it, or what the caller
 * named is not a revision of this record. `currentRevision` tells it which one is, absent when the record
 * does not exist (a create that named a revision can only be stale).
 */
export class RevisionMismatchError extends DomainError {
  readonly code = 'record.precondition_failed';
  readonly recordId: string;
  readonly currentRevision: number | undefined;

  constructor(recordId: string, currentRevision: number | undefined, options?: ErrorOptions) {
    super(
      currentRevision === undefined
        ? 'The record does not exist, so no revision of it can be the one changed'
        : 'The record has changed since the revision given; read it again and retry',
      options,
    );
    this.recordId = recordId;
    this.currentRevision = currentRevision;
  }
}

/** A list cursor that this service did not issue for this listing. */
export class InvalidCursorError extends DomainError {
  readonly code = 'validation.invalid_cursor';

  constructor(options?: ErrorOptions) {
    super('The cursor is not valid for this listing', options);
  }
}

/** The same Idempotency-Key was sent with a different request. */
export class IdempotencyKeyReusedError extends DomainError {
  readonly code = 'idempotency.key_reused';

  constructor() {
    super('This Idempotency-Key was already used for a different request');
  }
}
