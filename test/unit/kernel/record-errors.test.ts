import { describe, expect, it } from 'vitest';
import { errorResponse, KERNEL_ERROR_STATUSES } from '../../../lambdas/http/error-responses.ts';
import type { DomainError } from '../../../lambdas/kernel/errors/domain-error.ts';
import {
  ExpectedRevisionRequiredError,
  IdempotencyKeyReusedError,
  InvalidCursorError,
  RecordNotCommittedError,
  RevisionConflictError,
  RevisionMismatchError,
} from '../../../lambdas/kernel/records/record.errors.ts';

/** What a caller receives for `error`: the status and the error body the one mapper makes of it. */
const answered = (error: DomainError) => {
  const response = errorResponse(error, 'request-1', KERNEL_ERROR_STATUSES);
  return { status: response.statusCode, body: JSON.parse(String(response.body)) as { error: unknown } };
};

describe('Module: record errors', () => {
  it.each([
    [
      new RevisionConflictError(),
      409,
      'RevisionConflictError',
      'record.revision_conflict',
      'The revision already exists',
    ],
    [
      new ExpectedRevisionRequiredError(),
      428,
      'ExpectedRevisionRequiredError',
      'record.precondition_required',
      'This record exists: replacing it requires the revision it replaces',
    ],
    [
      new RevisionMismatchError('01J0000000000000000000000A', 3),
      412,
      'RevisionMismatchError',
      'record.precondition_failed',
      'The record has changed since the revision given; read it again and retry',
    ],
    [
      new RevisionMismatchError('01J0000000000000000000000A', undefined),
      412,
      'RevisionMismatchError',
      'record.precondition_failed',
      'The record does not exist, so no revision of it can be the one changed',
    ],
    [
      new InvalidCursorError(),
      422,
      'InvalidCursorError',
      'validation.invalid_cursor',
      'The cursor is not valid for this listing',
    ],
    [
      new IdempotencyKeyReusedError(),
      409,
      'IdempotencyKeyReusedError',
      'idempotency.key_reused',
      'This Idempotency-Key was already used for a different request',
    ],
  ] as const)('makes %s, answered with its status and code', (error, status, name, code, message) => {
    // Act
    const { status: answeredStatus, body } = answered(error);

    // Assess
    expect(error).toMatchObject({ name, code, message });
    expect(answeredStatus).toBe(status);
    expect(body.error).toMatchObject({ code });
  });

  it('keeps the cause of a lost race and of a write that did not commit', () => {
    const cause = new Error('underneath');

    expect(new RevisionConflictError({ cause }).cause).toBe(cause);
    expect(new RecordNotCommittedError({ cause }).cause).toBe(cause);
    expect(new RevisionMismatchError('id', 2, { cause }).cause).toBe(cause);
  });

  it('never lets a write that did not commit reach a caller as anything but an internal error', () => {
    const error = new RecordNotCommittedError();

    expect(error).toMatchObject({
      code: 'record.not_committed',
      message: 'The record this write refers to was not committed by this request',
    });
    expect(answered(error)).toEqual({
      status: 500,
      body: { error: { code: 'internal', message: 'Internal error', requestId: 'request-1' } },
    });
  });

  it('tells the caller of a mismatch which revision is current', () => {
    const response = errorResponse(
      new RevisionMismatchError('01J0000000000000000000000A', 3),
      'r',
      KERNEL_ERROR_STATUSES,
    );

    expect(response.headers?.ETag).toMatch(/^"3-/);
    expect(errorResponse(new RevisionMismatchError('x', undefined), 'r', KERNEL_ERROR_STATUSES).headers?.ETag).toBe(
      undefined,
    );
  });
});
