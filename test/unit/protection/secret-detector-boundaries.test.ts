import { describe, expect, it } from 'vitest';
import { ScreenedText } from '../../../lambdas/kernel/protection/screened-text.ts';
import {
  detectSecrets,
  detectSecretsUnderKey,
  looksLikeGeneratedSecret,
  looksLikePassword,
  type SecretReason,
} from '../../../lambdas/kernel/protection/secret-detectors.ts';
import { ALPHANUMERIC, generated } from './samples.ts';

/*
 * The edges of the secret detectors: each heuristic's thresholds, each label's spellings, each anchor of each
 * pattern. Samples come from the seeded generator in samples.ts, so no real-looking credential is committed.
 */

const found = (text: string): SecretReason[] => {
  const reasons = new Set<SecretReason>();
  detectSecrets(new ScreenedText(text), (reason) => reasons.add(reason));
  return [...reasons].sort();
};

const foundUnderKey = (key: string, value: string): SecretReason[] => {
  const reasons = new Set<SecretReason>();
  detectSecretsUnderKey(key, value, (reason) => reasons.add(reason));
  return [...reasons].sort();
};

/** 16 random characters (enough to read as generated) and 12 (too few). */
const RANDOM_16 = generated(16, ALPHANUMERIC, 7);
const RANDOM_32 = generated(32, ALPHANUMERIC, 13);
/** Forty base64 characters, mixed case with a digit, as AWS secret keys are. */
const AWS_SECRET = `ab${generated(37, ALPHANUMERIC, 19)}/`;

describe('Function: looksLikeGeneratedSecret', () => {
  it.each([
    ['16 random characters', RANDOM_16],
    ['16 random characters before punctuation', `${RANDOM_16}${'-'.repeat(40)}`],
    ['letters and digits with a zero inside', 'Ab3dE5gH0jK9mN1pQ'],
    ['mixed case alone, no digits', 'aBcDeFgHiJkLmNoPqR'],
    ['digits and letters switching twice', 'abcdefgh12345678ijk'],
    ['two letters among digits', '1234567890123a4b5'],
    ['two digits among letters', 'abcdefgh1ijklmn2o'],
    // At the thresholds: 40 % of neighbours of one case, and exactly 3 bits of entropy per character
    ['lower-case pairs at 40 %', 'abcDefGhiJklMnoP'],
    ['upper-case pairs at 40 %', 'ABCdEFgHIjKLmNOp'],
    ['eight characters twice each', 'a1b2c3d4a1b2c3d4'],
    ['an upper-case letter Z and lower-case a and z inside', 'Ab3dZ5gH7az9mN1pQ'],
  ])('accepts %s', (_, value) => {
    expect(looksLikeGeneratedSecret(value)).toBe(true);
  });

  it.each([
    ['15 random characters', generated(15, ALPHANUMERIC, 7)],
    [
      'a random value split by an underscore into halves too short',
      `${generated(12)}_${generated(12, ALPHANUMERIC, 3)}`,
    ],
    ['a random value split by a tilde', `${generated(12)}~${generated(12, ALPHANUMERIC, 3)}`],
    ['a dotted name whose random part is short', `config.${generated(12)}`],
    ['one letter, a hyphen and 15 random characters', `x-${generated(15)}`],
    ['a repeated run as long as the random one that follows', `${'A'.repeat(16)}-${RANDOM_16}`],
    ['digits then letters: one switch only', '12345678abcdefghij'],
    ['one digit among letters', 'abcdefghijklmno1p'],
    ['one letter among digits', '12345678901234a56'],
    ['one upper-case letter among lower case', 'abcdefghiJklmnopq'],
    ['one lower-case letter among upper case', 'ABCDEFGHIjKLMNOPQ'],
    ['camel-cased words', 'getUserAccountByIdentifier'],
    ['an upper-case run', 'ABCDEFGHIJklmnop'],
    ['lower-case pairs just over 40 %', 'abcdeFghijkLMnOpQrSt'],
  ])('rejects %s', (_, value) => {
    expect(looksLikeGeneratedSecret(value)).toBe(false);
  });
});

describe('Function: looksLikePassword', () => {
  it.each([
    'Abc12!',
    `Ab1${'x'.repeat(125)}`,
    'ab1  cd  ef',
    'abcdef!',
    'abcdef1',
    'abcdefghijkl',
    'Pa$sw0rd12',
    '1config.value',
    'config.value!',
    '1DB_PASSWORD',
    'DB_PASSWORD!',
  ])('accepts %j', (value) => {
    expect(looksLikePassword(value)).toBe(true);
  });

  it.each([
    'Ab1!  ',
    'Abc1!',
    `Ab1${'x'.repeat(126)}`,
    'ABCDEFG',
    'abcdefghijk',
    'DBX_PASSWORD',
    // Placeholder words, whatever case and digits are added to them
    ...[
      'empty',
      'hidden',
      'none',
      'null',
      'optional',
      'passphrase',
      'password',
      'passwd',
      'required',
      'secret',
      'undefined',
      'unknown',
      'unset',
      'yourpassword',
    ].map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}12`),
  ])('rejects %j', (value) => {
    expect(looksLikePassword(value)).toBe(false);
  });
});

describe('Function: detectSecrets', () => {
  describe('Well-known key formats', () => {
    it.each([
      ['a Slack token with digits', 'xoxb-1234567890-abcdefghij'],
      ['a Slack token of digits', 'xoxb-1234567890'],
      ['a Slack app token', 'xapp-1-ABCDEFGHIJ'],
      ['a GitHub token of letters', `ghp_${'A'.repeat(36)}`],
    ])('finds %s', (_, text) => {
      expect(found(text)).toContain('secret.api_key');
    });

    it('does not take a Slack-shaped word without digits for a token', () => {
      expect(found('xoxb-abcdefghijklmnop')).toEqual([]);
    });
  });

  describe('Labelled values', () => {
    const labels = [
      ['api', 'key'],
      ['access', 'key'],
      ['secret', 'key'],
      ['client', 'secret'],
      ['app', 'secret'],
      ['api', 'secret'],
      ['auth', 'token'],
      ['access', 'token'],
      ['refresh', 'token'],
      ['api', 'token'],
      ['bearer', 'token'],
      ['private', 'key'],
      ['signing', 'key'],
      ['encryption', 'key'],
      ['master', 'key'],
    ] as const;
    const spellings = labels.flatMap(([first, second]) =>
      ['', ' ', '_', '.', '-'].map((separator) => `${first}${separator}${second}`),
    );

    it.each(spellings)('finds a generated value under %j', (label) => {
      expect(found(`${label}=${RANDOM_32}`)).toEqual(['secret.api_key']);
    });

    it.each(['secretaccesskey', 'secret_access_key', 'secret access.key', 'secret-access-key'])(
      'finds a generated value under %j',
      (label) => {
        expect(found(`${label}: ${RANDOM_32}`)).toEqual(['secret.api_key']);
      },
    );

    it.each([
      ['a bare token after a comma, not after a pagination word', `next, token: ${RANDOM_32}`],
      ['a qualified token label after a pagination word', `next auth_token=${RANDOM_32}`],
      ['a secret key label after a pagination word', `next secret_key=${RANDOM_32}`],
      ['an api key after a pagination word', `page api_key=${RANDOM_32}`],
    ])('finds %s', (_, text) => {
      expect(found(text)).toEqual(['secret.api_key']);
    });

    it.each([
      ['a pagination token', `next_token=${RANDOM_32}`],
      ['a random value split by a dot into short halves', `token=${generated(10)}.${generated(10, ALPHANUMERIC, 3)}`],
      ['a short password before closing punctuation', 'password=abcdefg))'],
      ['a short password before a full stop', 'password=abcdefg.'],
    ])('finds nothing in %s', (_, text) => {
      expect(found(text)).toEqual([]);
    });
  });

  describe('Authorization headers', () => {
    it.each([
      ['a bearer token after two spaces', `Authorization: Bearer  ${RANDOM_32}`],
      ['a bearer token before a comma', `Authorization: Bearer ${RANDOM_32}, next`],
    ])('finds %s', (_, text) => {
      expect(found(text)).toEqual(['secret.api_key']);
    });

    it('does not take a bearer word for a token, nor a token that runs on', () => {
      expect(found('Authorization: Bearer placeholder')).toEqual([]);
      expect(found(`Authorization: Bearer ${RANDOM_32}=x`)).toEqual([]);
    });

    it.each([
      ['credentials ending in a control character', 'user:secret\n'],
      ['credentials starting with a control character', '\u0001user:secret'],
    ])('does not take %s for Basic credentials', (_, decoded) => {
      expect(found(`Authorization: Basic ${Buffer.from(decoded, 'latin1').toString('base64')}`)).toEqual([]);
    });
  });

  describe('URL credentials', () => {
    it.each(['bypass', 'passw0rd99', 'xxxxy'])('finds the password %j', (password) => {
      expect(found(`https://user:${password}@example.com/`)).toEqual(['secret.password']);
    });

    it.each(['pass', 'password', 'pwd', 'secret', 'xxxx', 'x', '****', '...'])(
      'takes %j for a placeholder',
      (password) => {
        expect(found(`https://user:${password}@example.com/`)).toEqual([]);
      },
    );
  });

  describe('AWS secret keys', () => {
    it.each([
      ['after an aws label', `aws secret ${AWS_SECRET} end`],
      ['before a label that follows it', `${AWS_SECRET} is the aws secret`],
    ])('finds one %s', (_, text) => {
      expect(found(text)).toContain('secret.aws_secret_key');
    });

    it.each([
      ['with the label more than 100 characters before it', `aws ${'x '.repeat(60)}${AWS_SECRET}`],
      ['whose own characters spell a label', `${generated(10)}Aws${generated(26, ALPHANUMERIC, 5)}1`],
    ])('finds none %s', (_, text) => {
      expect(found(text)).not.toContain('secret.aws_secret_key');
    });
  });

  describe('JSON web tokens', () => {
    const base64url = (text: string) => Buffer.from(text).toString('base64url');
    /** A header of exactly `length` base64url characters (a multiple of four) that decodes to JSON with an `alg`. */
    const headerOf = (length: number) => {
      const bytes = (length / 4) * 3;
      const prefix = '{"alg":"HS256","pad":"';
      return base64url(`${prefix}${'a'.repeat(bytes - prefix.length - 2)}"}`);
    };

    it('reads a header of 4096 characters, and none longer', () => {
      expect(headerOf(4096)).toHaveLength(4096);
      expect(found(`${headerOf(4096)}.payload.signature`)).toEqual(['secret.jwt']);
      expect(found(`${headerOf(4100)}.payload.signature`)).toEqual([]);
    });

    it('finds nothing in three segments whose header is not JSON', () => {
      expect(found('eyabcdefghijkl.mnop.qrst')).toEqual([]);
    });
  });

  describe('Private keys', () => {
    it('finds a PuTTY key file of any version', () => {
      expect(found('PuTTY-User-Key-File-10: ssh-rsa')).toEqual(['secret.private_key']);
    });

    it('does not take a mention of a private key for one', () => {
      expect(found('the PRIVATE KEY file is in the vault')).toEqual([]);
    });
  });
});

describe('Function: detectSecretsUnderKey', () => {
  it.each([
    ['api-key', RANDOM_32, ['secret.api_key']],
    ['nextTokenRefreshToken', RANDOM_32, ['secret.api_key']],
    ['aws_key', AWS_SECRET, ['secret.aws_secret_key']],
  ] as const)('finds what %s holds', (key, value, reasons) => {
    expect(foundUnderKey(key, value)).toEqual(reasons);
  });

  it.each([
    ['passwordHint', 'Abc123!x'],
    ['tokenType', RANDOM_32],
    ['aws_secret', 'a'.repeat(40)],
  ])('finds nothing under %s', (key, value) => {
    expect(foundUnderKey(key, value)).toEqual([]);
  });

  it('takes only exactly forty characters for an AWS secret key', () => {
    expect(foundUnderKey('aws_secret_access_key', `${AWS_SECRET}x`)).not.toContain('secret.aws_secret_key');
    expect(foundUnderKey('aws_secret_access_key', `x${AWS_SECRET}`)).not.toContain('secret.aws_secret_key');
    expect(foundUnderKey('aws_secret_access_key', AWS_SECRET)).toContain('secret.aws_secret_key');
  });
});
