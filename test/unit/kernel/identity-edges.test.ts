import { describe, expect, it } from 'vitest';
import { errorResponse, KERNEL_ERROR_STATUSES } from '../../../lambdas/http/error-responses.ts';
import { ValidationFailedError } from '../../../lambdas/kernel/errors/domain-error.ts';
import { ForbiddenError, UnauthenticatedError } from '../../../lambdas/kernel/identity/identity.errors.ts';
import { ALL_MEMORY_HUB_SCOPES, isMemoryHubScope } from '../../../lambdas/kernel/identity/oauth-scopes.ts';
import { Scope } from '../../../lambdas/kernel/identity/scope.ts';
import { assertTokenInForce } from '../../../lambdas/kernel/identity/token-rules.ts';
import { readVerifiedClaims } from '../../../lambdas/kernel/identity/verified-claims.ts';
import { KINDS } from '../../support/record-kinds.ts';
import { refusalOf } from '../../support/refusals.ts';
import { scopeOf } from '../../support/scopes.ts';

/*
 * The identity kernel at its edges: what each refusal says (a caller reads the 4xx issues, an operator the
 * 401 reason), and the anchors of every claim pattern, so that nothing around a valid value slips through.
 */

describe('Class: Scope', () => {
  it('refuses to be built with any token but its own, even from complete claims', () => {
    const construct = Scope as unknown as new (token: symbol, claims: unknown) => Scope;
    const claims = { tenant: 'acme', principal: 'mallory', client: 'c', memberships: [], orgAdmin: true };

    expect(() => new construct(Symbol('scope-construction'), claims)).toThrow(
      new TypeError('A Scope is built only from verified claims'),
    );
  });

  it('is frozen, memberships included', () => {
    const scope = scopeOf({ groups: ['project:p1:member'] });

    expect(Object.isFrozen(scope)).toBe(true);
    expect(Object.isFrozen(scope.memberships)).toBe(true);
  });

  it('is a member of every project it holds a membership of', () => {
    const scope = scopeOf({ groups: ['project:p1:member', 'project:p2:admin'] });

    expect([scope.isMemberOf('p1'), scope.isMemberOf('p2'), scope.isMemberOf('p3')]).toEqual([true, true, false]);
  });

  describe('Method: namespace', () => {
    const member = scopeOf({ groups: ['project:p7:member'] });
    const issuesOf = (act: () => unknown) => {
      const error = refusalOf(act);
      expect(error).toBeInstanceOf(ValidationFailedError);
      return { message: error.message, issues: (error as ValidationFailedError).issues };
    };

    it('names the field of a kind outside the closed set', () => {
      expect(issuesOf(() => member.namespace('secrets' as never))).toEqual({
        message: 'Unknown memory kind',
        issues: [{ path: 'kind', message: 'not a known kind' }],
      });
    });

    it.each(['agent', 'session', 'project'] as const)(
      'names the %s narrowing it refuses, and says what it takes',
      (field) => {
        expect(issuesOf(() => member.namespace(KINDS.note, { [field]: 'a/b' }))).toEqual({
          message: `Invalid ${field} name`,
          issues: [{ path: field, message: 'must be 1-64 characters of A-Z, a-z, 0-9, _ or -' }],
        });
      },
    );

    it.each([
      ['a session', { session: 's1' }],
      ['a project', { project: 'p7' }],
      ['an agent', { agent: 'coder' }],
    ])("refuses the organisation's space narrowed to %s", (_, narrowing) => {
      expect(issuesOf(() => member.namespace(KINDS.guardrail, { organisation: true, ...narrowing }))).toEqual({
        message: 'The organisation owns only its shared settings, not narrowed',
        issues: [{ path: 'kind', message: "the organisation's space holds organisation-owned kinds only" }],
      });
    });

    it.each([
      ['agent', { agent: 'coder' }],
      ['session', { session: 's1' }],
      ['agent', { agent: 'coder', session: 's1' }],
    ])('refuses a project namespace narrowed further, naming the %s', (path, narrowing) => {
      expect(issuesOf(() => member.namespace(KINDS.note, { project: 'p7', ...narrowing }))).toEqual({
        message: 'A project namespace cannot be narrowed to an agent or a session',
        issues: [{ path, message: 'not allowed with a project' }],
      });
    });
  });
});

describe('Function: readVerifiedClaims', () => {
  const claimsWith = (overrides: Record<string, unknown>) => ({
    sub: 'alice',
    'custom:tenant': 'acme',
    client_id: 'coder-app',
    ...overrides,
  });
  const LACKS = 'The token lacks the claims this service needs (sub, custom:tenant, client_id)';
  const GROUPS = 'The token names a group outside the documented names (project:{id}:{role}, org:admin)';

  it.each([
    ['a group with text before the documented name', ['xproject:p7:member']],
    ['the list form with text before the brackets', 'x[project:p7:member]'],
    ['the list form with text after the brackets', '[project:p7:member]x'],
    ['a group that only turns into a documented name as text', [{ toString: (): string => 'project:p7:admin' }]],
  ])('refuses %s', (_, groups) => {
    expect(refusalOf(() => readVerifiedClaims(claimsWith({ 'cognito:groups': groups })))).toEqual(
      new UnauthenticatedError(GROUPS),
    );
  });

  it('says which part of the token it refuses', () => {
    expect(refusalOf(() => readVerifiedClaims(claimsWith({ sub: undefined })))).toEqual(
      new UnauthenticatedError(LACKS),
    );
    expect(
      refusalOf(() => readVerifiedClaims(claimsWith({ sub: undefined, 'cognito:groups': ['not-a-group'] }))),
    ).toEqual(new UnauthenticatedError(GROUPS));
  });
});

describe('Function: assertTokenInForce', () => {
  const now = new Date('2026-06-01T12:00:00.000Z');
  const nowSeconds = now.getTime() / 1000;
  const reasonFor = (claims: Record<string, unknown>) => refusalOf(() => assertTokenInForce(claims, now)).message;

  it.each([
    ['no exp', { iat: nowSeconds }, 'The token has no expiry (exp)'],
    ['an infinite exp', { exp: Number.POSITIVE_INFINITY, iat: nowSeconds }, 'The token has an unreadable expiry (exp)'],
    [
      'an exp with letters after its digits',
      { exp: `${nowSeconds + 60}x`, iat: nowSeconds },
      'The token has an unreadable expiry (exp)',
    ],
    ['no iat', { exp: nowSeconds + 60 }, 'The token has no issue time (iat)'],
    ['an unreadable iat', { exp: nowSeconds + 60, iat: 'soon' }, 'The token has an unreadable issue time (iat)'],
    ['a negative iat', { exp: nowSeconds + 60, iat: -1 }, 'The token has an unreadable issue time (iat)'],
    [
      'an iat of 0, the epoch',
      { exp: nowSeconds + 60, iat: 0 },
      'The token lifetime exceeds the 24 hours this service accepts',
    ],
    ['an exp equal to its iat', { exp: nowSeconds + 3, iat: nowSeconds + 3 }, 'The token expires before it was issued'],
    [
      'an unreadable nbf',
      { exp: nowSeconds + 60, iat: nowSeconds, nbf: 'later' },
      'The token has an unreadable start time (nbf)',
    ],
  ])('refuses a token with %s, saying so', (_, claims, reason) => {
    expect(reasonFor(claims)).toBe(reason);
  });

  it('accepts an nbf of 0', () => {
    expect(() => assertTokenInForce({ exp: nowSeconds + 60, iat: nowSeconds, nbf: 0 }, now)).not.toThrow();
  });
});

describe('Module: identity errors and scopes', () => {
  it('answers an unauthenticated caller 401 with a bearer challenge and a default reason', () => {
    const response = errorResponse(new UnauthenticatedError(), 'r', KERNEL_ERROR_STATUSES);

    expect(response.statusCode).toBe(401);
    expect(response.headers?.['WWW-Authenticate']).toBe('Bearer');
    expect(JSON.parse(String(response.body)).error).toMatchObject({
      code: 'auth.unauthenticated',
      message: 'A valid bearer token is required',
    });
  });

  it('answers a forbidden action 403 with its code and a default reason', () => {
    const response = errorResponse(new ForbiddenError(), 'r', KERNEL_ERROR_STATUSES);

    expect(response.statusCode).toBe(403);
    expect(JSON.parse(String(response.body)).error).toMatchObject({
      code: 'auth.forbidden',
      message: 'This action is not allowed for the caller',
    });
  });

  it('knows its own scopes only', () => {
    for (const scope of ALL_MEMORY_HUB_SCOPES) expect(isMemoryHubScope(scope)).toBe(true);
    for (const other of ['memory-hub/memory', 'openid', undefined, 1]) expect(isMemoryHubScope(other)).toBe(false);
  });
});
