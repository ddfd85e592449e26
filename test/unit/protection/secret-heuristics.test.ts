import { describe, expect, it } from 'vitest';
import { looksLikeGeneratedSecret, looksLikePassword } from '../../../lambdas/kernel/protection/secret-detectors.ts';
import { ALPHANUMERIC, generated, LOWER_HEX } from './samples.ts';

describe('Function: looksLikeGeneratedSecret', () => {
  it.each([
    ['random base62', generated(32)],
    ['random base62 with a single digit', 'DjBFcYqWkqqGKQxlIPUKiWC7tQGwyOKF'],
    ['random lower-case hex', generated(32, LOWER_HEX)],
    ['a base64 value with padding', `${generated(30, `${ALPHANUMERIC}+/`, 5)}==`],
  ])('accepts %s', (_, value) => {
    expect(looksLikeGeneratedSecret(value)).toBe(true);
  });

  it.each([
    ['a short value', 'a1B2c3D4'],
    ['a camelCase identifier with a digit', 'getAccessTokenFromRequest2'],
    ['an acronym-led identifier', 'XMLHttpRequestFactory'],
    ['a slug', 'my-super-long-config-value-2024'],
    ['a low-entropy pattern', 'aaaa1111bbbb2222'],
    ['a UUID', '550e8400-e29b-41d4-a716-446655440000'],
    ['a long word', 'Donaudampfschifffahrtsgesellschaft'],
    ['digits only', '12345678901234567890'],
  ])('rejects %s', (_, value) => {
    expect(looksLikeGeneratedSecret(value)).toBe(false);
  });
});

describe('Function: looksLikePassword', () => {
  it.each(['Tr0ub4dor&3', 'hunter2hunter2', 'correcthorsebatterystaple', 'correct horse battery'])(
    'accepts %s',
    (value) => {
      expect(looksLikePassword(value)).toBe(true);
    },
  );

  it.each([
    'abc12',
    '********',
    'xxxxxxxxxxxx',
    `\${DB_PASSWORD}`,
    '{{ secrets.db }}',
    '<password>',
    'process.env.DB_PASSWORD',
    'DB_PASSWORD',
    'changeme',
    'REDACTED',
    'ask the on-call engineer',
    'forgotten',
  ])('rejects %s', (value) => {
    expect(looksLikePassword(value)).toBe(false);
  });
});
