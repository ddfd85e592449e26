import { describe, expect, it } from 'vitest';
import { InsufficientScopeError, UnauthenticatedError } from '../../../lambdas/kernel/identity/identity.errors.ts';
import { assertScopeGranted, MEMORY_HUB_SCOPES } from '../../../lambdas/kernel/identity/oauth-scopes.ts';
import {
  assertTokenInForce,
  MAX_TOKEN_LIFETIME_SECONDS,
  TOKEN_CLOCK_SKEW_SECONDS,
} from '../../../lambdas/kernel/identity/token-rules.ts';
import { refusalOf } from '../../support/refusals.ts';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const nowSeconds = NOW.getTime() / 1000;

/** The time claims of a token issued `age` seconds ago that lives `lifetime` seconds. */
const issued = (age: number, lifetime = 3600) => ({ iat: nowSeconds - age, exp: nowSeconds - age + lifetime });

const refusal = (claims: Record<string, unknown>): Error => refusalOf(() => assertTokenInForce(claims, NOW));

describe('Function: assertTokenInForce', () => {
  it('accepts a token issued a minute ago that lives an hour', () => {
    // Act & Assess
    expect(() => assertTokenInForce(issued(60), NOW)).not.toThrow();
  });

  it('reads the decimal strings API Gateway hands a Lambda function as it does JSON numbers', () => {
    // Prepare
    const { iat, exp } = issued(60);

    // Act & Assess
    expect(() => assertTokenInForce({ iat: String(iat), exp: String(exp) }, NOW)).not.toThrow();
    expect(() => assertTokenInForce({ iat: String(iat), exp: String(nowSeconds - 1) }, NOW)).toThrow(
      UnauthenticatedError,
    );
  });

  it('refuses a token without an expiry', () => {
    // Act & Assess
    expect(refusal({ iat: nowSeconds - 60 })).toBeInstanceOf(UnauthenticatedError);
    expect(refusal({ iat: nowSeconds - 60 }).message).toMatch(/exp/);
  });

  it('refuses a token without an issue time, whose lifetime cannot be bounded', () => {
    // Act & Assess
    expect(refusal({ exp: nowSeconds + 60 })).toBeInstanceOf(UnauthenticatedError);
    expect(refusal({ exp: nowSeconds + 60 }).message).toMatch(/iat/);
  });

  it.each([
    ['a word', 'soon'],
    ['a date string', 'Tue Apr 04 18:39:39 UTC 2023'],
    ['a negative number', -1],
    ['a fraction in a string', '1.5e9'],
    ['infinity', Number.POSITIVE_INFINITY],
    ['an array', [nowSeconds + 60]],
  ])('refuses an expiry that is %s', (_, exp) => {
    // Act & Assess
    expect(refusal({ iat: nowSeconds - 60, exp })).toBeInstanceOf(UnauthenticatedError);
  });

  it('refuses a token at its expiry instant, as API Gateway does ("exp must be after the current time")', () => {
    // Act & Assess
    expect(refusal({ iat: nowSeconds - 3600, exp: nowSeconds }).message).toMatch(/expired/);
    expect(() => assertTokenInForce({ iat: nowSeconds - 3600, exp: nowSeconds + 1 }, NOW)).not.toThrow();
  });

  it(`accepts an issue time up to ${TOKEN_CLOCK_SKEW_SECONDS} s ahead (clock skew) and refuses one further ahead`, () => {
    // Act & Assess
    expect(() => assertTokenInForce(issued(-TOKEN_CLOCK_SKEW_SECONDS), NOW)).not.toThrow();
    expect(refusal(issued(-TOKEN_CLOCK_SKEW_SECONDS - 1)).message).toMatch(/future/);
    expect(refusal(issued(-86_400)).message).toMatch(/future/);
  });

  it(`refuses a token that lives longer than ${MAX_TOKEN_LIFETIME_SECONDS} s (Cognito's longest access token)`, () => {
    // Act & Assess
    expect(() => assertTokenInForce(issued(60, MAX_TOKEN_LIFETIME_SECONDS), NOW)).not.toThrow();
    expect(refusal(issued(60, MAX_TOKEN_LIFETIME_SECONDS + 1)).message).toMatch(/lifetime/);
    expect(refusal({ iat: nowSeconds - 60, exp: nowSeconds + 10 * 365 * 86_400 }).message).toMatch(/lifetime/);
  });

  it('refuses a token that expires before it was issued', () => {
    // Act & Assess
    expect(refusal({ iat: nowSeconds + 2, exp: nowSeconds + 1 })).toBeInstanceOf(UnauthenticatedError);
  });

  it('refuses a token that is not valid yet (nbf), with the same skew as the issue time', () => {
    // Act & Assess
    expect(() => assertTokenInForce({ ...issued(60), nbf: nowSeconds + TOKEN_CLOCK_SKEW_SECONDS }, NOW)).not.toThrow();
    expect(refusal({ ...issued(60), nbf: nowSeconds + TOKEN_CLOCK_SKEW_SECONDS + 1 }).message).toMatch(/not valid yet/);
    expect(refusal({ ...issued(60), nbf: 'later' })).toBeInstanceOf(UnauthenticatedError);
  });
});

describe('Function: assertScopeGranted', () => {
  it('accepts a token whose space-separated scope claim holds the required scope', () => {
    // Prepare
    const claims = { scope: `aws.cognito.signin.user.admin ${MEMORY_HUB_SCOPES.read}` };

    // Act & Assess
    expect(() => assertScopeGranted(claims, MEMORY_HUB_SCOPES.read)).not.toThrow();
  });

  it.each([
    ['another scope only', { scope: MEMORY_HUB_SCOPES.read }],
    ['no scope claim', {}],
    ['a scope that only starts like it', { scope: `${MEMORY_HUB_SCOPES.write}s` }],
    ['a comma-joined list', { scope: `${MEMORY_HUB_SCOPES.read},${MEMORY_HUB_SCOPES.write}` }],
    ['an array where a string is due', { scope: [MEMORY_HUB_SCOPES.write] }],
  ])('refuses a token with %s, naming the scope it lacks', (_, claims) => {
    // Act
    const act = () => assertScopeGranted(claims, MEMORY_HUB_SCOPES.write);

    // Assess
    expect(act).toThrow(InsufficientScopeError);
    expect(act).toThrow(
      expect.objectContaining({ code: 'auth.insufficient_scope', requiredScope: MEMORY_HUB_SCOPES.write }),
    );
  });
});
