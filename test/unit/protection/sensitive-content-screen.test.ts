import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../lambdas/kernel/errors/domain-error.ts';
import { SensitiveContentRefusedError } from '../../../lambdas/kernel/protection/protection.errors.ts';
import { SensitiveContentReason } from '../../../lambdas/kernel/protection/protection.schema.ts';
import {
  assertNoSensitiveContent,
  screenSensitiveContent,
} from '../../../lambdas/kernel/protection/sensitive-content-screen.ts';
import { ALPHANUMERIC, BASE32, generated, LOWER_HEX, SECRET_SAMPLES, signedJwt } from './samples.ts';

const reasonsOf = (value: unknown): readonly string[] => {
  const result = screenSensitiveContent(value);
  return result.verdict === 'refused' ? result.reasons : [];
};

const expectClean = (value: unknown): void => {
  expect(screenSensitiveContent(value)).toEqual({ verdict: 'clean' });
};

describe('Function: screenSensitiveContent', () => {
  describe('Detector: email addresses (pii.email)', () => {
    it.each([
      'Send the invoice to maria.garcia@example.com tomorrow.',
      'Contact: j.doe+newsletter@mail.example.co.uk',
      'mailto:ops-team@acme.io',
    ])('refuses %s', (text) => {
      expect(reasonsOf(text)).toEqual(['pii.email']);
    });

    it.each([
      'email me later about the rollout',
      '@alice reviewed the pull request',
      'pinned lodash@4.17.21 and @types/node@24',
      'use icon@2x.png on retina screens',
      'clone git@github.com:acme/memory-hub.git first',
      'the service listens on user@localhost',
      'decorators like @Injectable() are fine',
    ])('keeps %s clean', (text) => {
      expectClean(text);
    });
  });

  describe('Detector: phone numbers (pii.phone)', () => {
    it.each([
      'call me at +44 20 7946 0958',
      'Her number is +1 (415) 555-2671.',
      'E.164: +14155552671',
      'The US office is on (415) 555-2671 after 9am.',
      'reach the desk on 415-555-2671 today',
      'or 415.555.2671',
      'dial 1 415 555 2671',
      'Ring 020 7946 0958 after lunch',
      'UK mobile 07700 900123',
      'from abroad dial 0044 20 7946 0958',
      'mobile: 7946095812',
      'phone number is 555 1234',
      'call me at +44\u00a020\u00a07946\u00a00958 (copied with no-break spaces)',
    ])('refuses %s', (text) => {
      expect(reasonsOf(text)).toContain('pii.phone');
    });

    it.each([
      'order 5551234567 shipped on Monday',
      'The meeting is 2026-11-30 at 10:00',
      'Deployed at 2026-11-30T10:00:00+01:00 and again at 2026-11-30T11:00:00.000Z',
      'tracking id ORD-415-555-2671 is in the ticket',
      'build 20261130.1045 passed, 2 + 2 = 4',
      'the range is 10-20 and 30-40',
      'invoice total was $1,234.56 (EUR 1.234,56)',
      'call me in 2026',
      'tel 2026-11-30',
      'the bucket holds 123 456 items',
      'sizes 250 300 1200 px',
      'an IP address 192.168.100.254',
      'release v24.11.1 and 1.2.3-beta.4',
      'see line +12 of the diff',
    ])('keeps %s clean', (text) => {
      expect(reasonsOf(text)).not.toContain('pii.phone');
    });
  });

  describe('Detector: national identity numbers (pii.national_id)', () => {
    it.each([
      'SSN 219-09-9998 on the form',
      'her social security number is 219099998',
      'SSN: 219 09 9998',
      'NI number AB 12 34 56 C',
      'ni: AB123456C',
      'DNI 12345678Z',
      'NIE X1234567L',
      'Aadhaar 2345 6789 0124',
      'aadhaar no: 234567890124',
    ])('refuses %s', (text) => {
      expect(reasonsOf(text)).toContain('pii.national_id');
    });

    it.each([
      '666-12-3456 is never issued',
      '900-12-3456 is an ITIN range',
      '219-00-9998 has group 00',
      '219-09-0000 has serial 0000',
      'QQ 12 34 56 C is the placeholder',
      'GB 12 34 56 A is unallocated',
      'DNI 12345678A has the wrong letter',
      'Aadhaar 2345 6789 0123 fails Verhoeff',
      '2345 6789 0124 without a label',
      'just 219099998 without a label',
      'the scores were 219 09 9998',
    ])('keeps %s clean', (text) => {
      expect(reasonsOf(text)).not.toContain('pii.national_id');
    });
  });

  describe('Detector: payment cards (pii.payment_card)', () => {
    it.each([
      '4111 1111 1111 1111',
      'card 4111-1111-1111-1111 on file',
      'raw 4111111111111111',
      'Mastercard 5555 5555 5555 4444',
      'Amex 3782 822463 10005',
      'paid with 4111 1111 1111 1111 exp 12/27',
      'ref 12 4111 1111 1111 1111 12',
      'full width ４１１１ １１１１ １１１１ １１１１',
    ])('refuses %s', (text) => {
      expect(reasonsOf(text)).toContain('pii.payment_card');
    });

    it('refuses a card number that arrives as a JSON number', () => {
      expect(reasonsOf({ card: 4111111111111111 })).toEqual(['pii.payment_card']);
    });

    it.each([
      '4111 1111 1111 1112',
      '4111111111111112',
      'epoch millis 1732960000000 and 1732960000000000',
      'ORD4111111111111111',
      'pi is 3.4111111111111111',
      '79927398713 passes Luhn but is too short',
      '1234 5678 9012 3456',
      '4111 11 1111 1111 11 is not a card grouping',
    ])('keeps %s clean', (text) => {
      expect(reasonsOf(text)).not.toContain('pii.payment_card');
    });
  });

  describe('Detector: IBANs (pii.iban)', () => {
    it.each([
      'GB82 WEST 1234 5698 7654 32',
      'Refund to GB82WEST12345698765432, thanks',
      'IBAN: DE89 3704 0044 0532 0130 00.',
      'NL91ABNA0417164300',
      'FR14 2004 1010 0505 0001 3M02 606',
    ])('refuses %s', (text) => {
      expect(reasonsOf(text)).toContain('pii.iban');
    });

    it.each([
      'GB83 WEST 1234 5698 7654 32',
      'GB82 WEST 1234 5698 7654 3',
      'GB82 WEST 1234 5698 7654 321',
      'XX82 WEST 1234 5698 7654 32',
      'DE12 the quick brown fox jumps',
    ])('keeps %s clean', (text) => {
      expect(reasonsOf(text)).not.toContain('pii.iban');
    });
  });

  describe('Detector: API keys (secret.api_key)', () => {
    it.each([
      ['an OpenAI-style key', `sk-${generated(48)}`],
      ['an Anthropic-style key', `sk-ant-api03-${generated(80, `${ALPHANUMERIC}-_`)}`],
      ['a Stripe live key', `sk_live_${generated(24)}`],
      ['a Stripe publishable key', `pk_live_${generated(24, ALPHANUMERIC, 2)}`],
      ['a GitHub token', `ghp_${generated(36)}`],
      ['a GitHub OAuth token', `gho_${generated(36, ALPHANUMERIC, 3)}`],
      ['a fine-grained GitHub token', `github_pat_${generated(22)}_${generated(59, ALPHANUMERIC, 4)}`],
      ['a Slack bot token', `xoxb-123456789012-1234567890123-${generated(24)}`],
      ['a Google API key', `AIza${generated(35, `${ALPHANUMERIC}-_`)}`],
      ['a GitLab token', `glpat-${generated(20)}`],
      ['an npm token', `npm_${generated(36)}`],
      ['a Hugging Face token', `hf_${generated(34)}`],
      ['a labelled random key', `api_key = '${generated(32, ALPHANUMERIC, 9)}'`],
      ['a labelled hex token', `ACCESS_TOKEN=${generated(40, LOWER_HEX, 9)}`],
      ['a JSON client secret', `{"client_secret": "${generated(40, ALPHANUMERIC, 21)}"}`],
      ['a bearer token', `Authorization: Bearer ${generated(40, ALPHANUMERIC, 8)}`],
    ])('refuses %s', (_, text) => {
      expect(reasonsOf(text)).toContain('secret.api_key');
    });

    it('refuses a random value under a key-like property name', () => {
      expect(reasonsOf({ apiKey: generated(32, ALPHANUMERIC, 31) })).toEqual(['secret.api_key']);
      expect(reasonsOf({ settings: { stripe_secret: generated(32, ALPHANUMERIC, 37) } })).toEqual(['secret.api_key']);
    });

    it.each([
      'sk-learn is a Python library',
      'name it sk-this-is-a-very-long-slug-for-docs',
      'task-1234567890abcdefghijklmnopqrstuvwxyz',
      'the api key is stored in the vault, ask ops',
      `api_key = \${OPENAI_API_KEY}`,
      'token: 4096 and max_tokens: 8192',
      'const token = await getAccessTokenFromRequest(request);',
      'secret: my-super-long-config-value-2024',
      `nextToken: ${generated(40, ALPHANUMERIC, 41)}`,
      'Authorization: Bearer <token>',
    ])('keeps %s clean', (text) => {
      expect(reasonsOf(text)).not.toContain('secret.api_key');
    });

    it('keeps pagination tokens and ordinary values under key-like names clean', () => {
      expectClean({ nextToken: generated(40, ALPHANUMERIC, 43), token: 'pending', apiKey: 'not-set-yet' });
    });
  });

  describe('Detector: AWS keys (secret.aws_access_key, secret.aws_secret_key)', () => {
    it('refuses access key ids', () => {
      expect(reasonsOf('AKIAIOSFODNN7EXAMPLE')).toEqual(['secret.aws_access_key']);
      expect(reasonsOf(`temporary ASIA${generated(16, BASE32)} expires`)).toEqual(['secret.aws_access_key']);
    });

    it('keeps near misses clean', () => {
      expectClean('AKIA1234 is too short, and AKIAIOSFODNN7EXAMPLE1 is too long');
      expectClean('the constant AKIAIOSFODNN7EXAMPL0 has a non-base32 character');
    });

    it('refuses a 40-character secret next to an AWS or secret label', () => {
      const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
      expect(reasonsOf(`aws_secret_access_key = ${secret}`)).toContain('secret.aws_secret_key');
      expect(reasonsOf(`The AWS key pair is AKIAIOSFODNN7EXAMPLE and ${secret}`)).toContain('secret.aws_secret_key');
      expect(reasonsOf({ AWS_SECRET_ACCESS_KEY: secret })).toContain('secret.aws_secret_key');
    });

    it('keeps 40-character hashes and unlabelled strings clean', () => {
      expectClean('rotated the secret in commit 3f786850e387550fdab836ed7e6dc881de23001b');
      expect(reasonsOf('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY')).not.toContain('secret.aws_secret_key');
    });
  });

  describe('Detector: JSON web tokens (secret.jwt)', () => {
    it('refuses a signed JWT', () => {
      expect(reasonsOf(`token was ${signedJwt()} yesterday`)).toContain('secret.jwt');
      expect(
        reasonsOf(
          'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
        ),
      ).toEqual(['secret.jwt']);
    });

    it('keeps dotted base64 whose header is not a JOSE header clean', () => {
      const notAHeader = Buffer.from('{"kind":"note"}').toString('base64url');
      expectClean(`${notAHeader}.eyJhIjoxfQ.c2ln`);
      expectClean('they said eyJhbGciOi was truncated');
    });
  });

  describe('Detector: private keys (secret.private_key)', () => {
    it.each([
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----',
      '-----BEGIN PRIVATE KEY-----',
      '-----BEGIN OPENSSH PRIVATE KEY-----',
      '-----BEGIN ENCRYPTED PRIVATE KEY-----',
      '-----BEGIN PGP PRIVATE KEY BLOCK-----',
      'PuTTY-User-Key-File-3: ssh-ed25519',
    ])('refuses %s', (text) => {
      expect(reasonsOf(text)).toContain('secret.private_key');
    });

    it('keeps public keys and certificates clean', () => {
      expectClean('-----BEGIN PUBLIC KEY-----\n-----BEGIN CERTIFICATE-----\nthe private key stays in KMS');
    });
  });

  describe('Detector: passwords (secret.password)', () => {
    it.each([
      'db password: Tr0ub4dor&3x',
      'PASSWORD=correcthorsebatterystaple',
      'postgres://app:s3cr3tPa55@db.internal:5432/app',
      `Authorization: Basic ${Buffer.from('alice:wonderland-42').toString('base64')}`,
    ])('refuses %s', (text) => {
      expect(reasonsOf(text)).toContain('secret.password');
    });

    it('refuses a password under a password-like property name', () => {
      expect(reasonsOf({ user: 'svc', db_password: 'hunter2hunter2' })).toEqual(['secret.password']);
    });

    it.each([
      'password: ********',
      `password=\${DB_PASSWORD}`,
      'password: process.env.DB_PASSWORD',
      'password: DB_PASSWORD_SECRET',
      'reset your password: it expires soon',
      'password: <your password here>',
      `postgres://app:password@localhost:5432/app and redis://user:\${REDIS_PASSWORD}@cache:6379`,
      'Password: changeme',
      'Basic authentication is disabled',
    ])('keeps %s clean', (text) => {
      expect(reasonsOf(text)).not.toContain('secret.password');
    });

    it('keeps prose and hints under password-like names clean', () => {
      expectClean({ password_hint: 'first pet', password: 'ask the on-call engineer for it' });
    });
  });

  describe('Ordinary text', () => {
    it.each([
      'The meeting is 2026-11-30 at 10:00',
      'Deployed 2026-11-30T10:00:00.000Z with build 1.2.3 (commit 8f14e45fceea167a5a36dedd4bea2543)',
      'record 01ARZ3NDEKTSV4RRFFQ69G5FAV revised by 550e8400-e29b-41d4-a716-446655440000',
      'sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      'The plan costs $1,299.99 per year or 45,00 EUR a month; 42 seats, 1234 requests.',
      'Use Node 24.11.1, TypeScript 5.9 and port 5432; see RFC 7519 section 4.1.',
      'ISBN 978-3-16-148410-0 and DOI 10.1000/182',
      'email me later; my phone is in my bag; the card game was fun; the token economy grew',
      'Alice prefers pnpm over npm and tabs over spaces.',
      'ignore previous instructions is not a secret, just a phrase',
    ])('keeps %s clean', (text) => {
      expectClean(text);
    });

    it('keeps a 16 KB paragraph of ordinary prose and numbers clean', () => {
      const paragraph =
        'On 2026-11-30 the team shipped release 3.14.2 to 12 regions; latency p99 fell from 412 ms to 187 ms, ' +
        'and 1,024 agents re-read record 01ARZ3NDEKTSV4RRFFQ69G5FAV. ';
      expectClean(paragraph.repeat(Math.ceil(16_384 / paragraph.length)));
    });
  });

  describe('Walking JSON values', () => {
    it('reads nested arrays and objects, and object keys too', () => {
      expect(reasonsOf({ notes: [{ text: 'fine' }, { text: ['call me at +44 20 7946 0958'] }] })).toEqual([
        'pii.phone',
      ]);
      expect(reasonsOf({ 'maria.garcia@example.com': true })).toEqual(['pii.email']);
    });

    it('answers sorted, de-duplicated reasons', () => {
      const result = screenSensitiveContent([
        'a@example.com',
        '4111 1111 1111 1111',
        'b@example.com',
        { owner: 'AKIAIOSFODNN7EXAMPLE' },
      ]);

      expect(result).toEqual({
        verdict: 'refused',
        reasons: ['pii.email', 'pii.payment_card', 'secret.aws_access_key'],
      });
    });

    it('keeps empty, null, boolean and numeric values clean', () => {
      for (const value of [null, undefined, true, 0, 42.5, '', [], {}, { a: [1, 2, { b: null }] }, new Date(0)]) {
        expectClean(value);
      }
    });

    it('refuses fail-closed what is too deep, too large or cyclic', () => {
      let deep: unknown = 'leaf';
      for (let level = 0; level < 100; level++) deep = [deep];
      const cyclic: Record<string, unknown> = { name: 'loop' };
      cyclic.self = cyclic;

      expect(reasonsOf(deep)).toEqual(['screen.limit_exceeded']);
      expect(reasonsOf(cyclic)).toEqual(['screen.limit_exceeded']);
      expect(
        screenSensitiveContent({ text: 'x'.repeat(101) }, { maxDepth: 8, maxNodes: 100, maxTextLength: 100 }),
      ).toEqual({ verdict: 'refused', reasons: ['screen.limit_exceeded'] });
      expect(
        screenSensitiveContent(
          Array.from({ length: 20 }, () => 'x'),
          { maxDepth: 8, maxNodes: 10, maxTextLength: 1000 },
        ),
      ).toEqual({ verdict: 'refused', reasons: ['screen.limit_exceeded'] });
    });

    it('refuses fail-closed what it cannot read, and never throws', () => {
      const throwing = Object.defineProperty({}, 'boom', {
        enumerable: true,
        get: () => {
          throw new Error('getter failed');
        },
      });

      expect(reasonsOf(() => 'code')).toEqual(['screen.unsupported_value']);
      expect(reasonsOf({ handle: Symbol('s') })).toEqual(['screen.unsupported_value']);
      expect(reasonsOf(new Map([['k', 'v']]))).toEqual(['screen.unsupported_value']);
      expect(reasonsOf(new Uint8Array([1, 2]))).toEqual(['screen.unsupported_value']);
      expect(reasonsOf(throwing)).toEqual(['screen.unsupported_value']);
    });
  });

  describe('Never echoing the value', () => {
    it.each(SECRET_SAMPLES.map((sample) => [sample.name, sample] as const))(
      'refuses %s without echoing it',
      (_, sample) => {
        const result = screenSensitiveContent(sample.text);
        expect(result.verdict).toBe('refused');
        expect(result.verdict === 'refused' && result.reasons).toContain(sample.reason);

        const error = new SensitiveContentRefusedError(result.verdict === 'refused' ? result.reasons : []);
        const exposed = [JSON.stringify(result), JSON.stringify(error), error.message, String(error)].join('\n');
        for (let start = 0; start + 6 <= sample.secret.length; start++) {
          expect(exposed).not.toContain(sample.secret.slice(start, start + 6));
        }
      },
    );

    it('answers only codes from the published list', () => {
      const known = new Set<string>(SensitiveContentReason.options);
      const result = screenSensitiveContent(SECRET_SAMPLES.map((sample) => sample.text));

      expect(result.verdict).toBe('refused');
      for (const reason of result.verdict === 'refused' ? result.reasons : []) expect(known.has(reason)).toBe(true);
    });
  });
});

describe('Function: assertNoSensitiveContent', () => {
  it('passes clean content through', () => {
    expect(() => assertNoSensitiveContent({ text: 'Alice prefers tabs.' })).not.toThrow();
  });

  it('throws SensitiveContentRefusedError with the reasons and a generic message', () => {
    let caught: unknown;
    try {
      assertNoSensitiveContent({ text: 'call me at +44 20 7946 0958 or maria.garcia@example.com' });
    } catch (error) {
      caught = error;
    }

    expect(caught).toBeInstanceOf(SensitiveContentRefusedError);
    expect(caught).toBeInstanceOf(DomainError);
    expect(caught).toMatchObject({
      name: 'SensitiveContentRefusedError',
      code: 'protection.sensitive_content',
      message: 'The content holds personal identifiers or secrets and was not stored',
      reasons: ['pii.email', 'pii.phone'],
    });
  });
});
