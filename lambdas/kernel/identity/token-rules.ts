import { UnauthenticatedError } from './identity.errors.ts';

/**
 * How far ahead of this clock a token's `iat` (and `nbf`) may lie. Cognito, API Gateway and Lambda keep
 * their clocks on the Amazon Time Sync Service, and the local issuer shares the local server's clock, so a
 * few seconds cover every honest token while a token stamped for later is still refused.
 */
export const TOKEN_CLOCK_SKEW_SECONDS = 5;

/**
 * The longest a token may live (`exp - iat`): one day, Cognito's maximum access-token validity (the app
 * clients here issue one-hour tokens). No token Cognito can mint is refused; a token minted to last for
 * years — by a misconfigured issuer or with a stolen key — is.
 */
export const MAX_TOKEN_LIFETIME_SECONDS = 86_400;

/** A NumericDate: JSON number in a token, decimal text once API Gateway has turned every claim into a string. */
const numericDateOf = (value: unknown): number | undefined => {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value === 'string' && /^\d{1,12}$/.test(value)) return Number(value);
  return undefined;
};

/**
 * Refuses (401) a token that is not in force at `now`: `exp` is required and must lie after now (as API
 * Gateway checks it), `iat` is required and at most TOKEN_CLOCK_SKEW_SECONDS ahead, the lifetime at most
 * MAX_TOKEN_LIFETIME_SECONDS, and an `nbf`, if present, reached. Run by the local verifier on every use of a
 * token (cached or not) and by the Lambda middleware on the claims API Gateway's authorizer passed on — API
 * Gateway neither requires `exp` nor bounds the lifetime. See README, "Tokens and scopes".
 */
export const assertTokenInForce = (claims: Readonly<Record<string, unknown>>, now: Date): void => {
  const nowSeconds = now.getTime() / 1000;
  const exp = numericDateOf(claims.exp);
  const iat = numericDateOf(claims.iat);
  if (claims.exp === undefined) throw new UnauthenticatedError('The token has no expiry (exp)');
  if (exp === undefined) throw new UnauthenticatedError('The token has an unreadable expiry (exp)');
  if (claims.iat === undefined) throw new UnauthenticatedError('The token has no issue time (iat)');
  if (iat === undefined) throw new UnauthenticatedError('The token has an unreadable issue time (iat)');
  if (exp <= nowSeconds) throw new UnauthenticatedError('The token has expired');
  if (iat > nowSeconds + TOKEN_CLOCK_SKEW_SECONDS) throw new UnauthenticatedError('The token is issued in the future');
  if (exp <= iat) throw new UnauthenticatedError('The token expires before it was issued');
  if (exp - iat > MAX_TOKEN_LIFETIME_SECONDS)
    throw new UnauthenticatedError('The token lifetime exceeds the 24 hours this service accepts');
  if (claims.nbf !== undefined) {
    const nbf = numericDateOf(claims.nbf);
    if (nbf === undefined) throw new UnauthenticatedError('The token has an unreadable start time (nbf)');
    if (nbf > nowSeconds + TOKEN_CLOCK_SKEW_SECONDS) throw new UnauthenticatedError('The token is not valid yet');
  }
};
