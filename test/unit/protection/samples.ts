/**
 * Test samples of secrets, built at run time from a fixed seed so that no real-looking credential sits in
 * the repository for a secret scanner to trip on, and the same values come out on every run.
 */

export const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export const LOWER_HEX = '0123456789abcdef';

export const generated = (length: number, alphabet = ALPHANUMERIC, seed = 7): string => {
  let state = seed;
  let value = '';
  for (let index = 0; index < length; index++) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    value += alphabet.charAt((state >>> 8) % alphabet.length);
  }
  return value;
};

const base64url = (json: object): string => Buffer.from(JSON.stringify(json)).toString('base64url');

export const signedJwt = (): string =>
  [
    base64url({ alg: 'HS256', typ: 'JWT' }),
    base64url({ sub: 'agent-7', tenant: 'acme', iat: 1_764_460_800 }),
    generated(43, `${ALPHANUMERIC}-_`, 11),
  ].join('.');

/** A value the screen must refuse, the reason it must give, and the part that must never be echoed. */
export interface SecretSample {
  readonly name: string;
  readonly text: string;
  readonly secret: string;
  readonly reason: string;
}

const sample = (name: string, reason: string, secret: string, template: (secret: string) => string): SecretSample => ({
  name,
  reason,
  secret,
  text: template(secret),
});

export const SECRET_SAMPLES: readonly SecretSample[] = [
  sample('an email address', 'pii.email', 'maria.garcia@example.com', (s) => `Send the invoice to ${s} tomorrow.`),
  sample('an international phone number', 'pii.phone', '+44 20 7946 0958', (s) => `call me at ${s}`),
  sample('a US phone number', 'pii.phone', '(415) 555-2671', (s) => `The US office is on ${s} after 9am.`),
  sample('a social security number', 'pii.national_id', '219-09-9998', (s) => `SSN ${s} on the form`),
  sample('a National Insurance number', 'pii.national_id', 'AB 12 34 56 C', (s) => `NI number ${s}`),
  sample('a Spanish DNI', 'pii.national_id', '12345678Z', (s) => `DNI ${s}`),
  sample('a Visa test card', 'pii.payment_card', '4111 1111 1111 1111', (s) => `paid with ${s} exp 12/27`),
  sample('an IBAN', 'pii.iban', 'GB82 WEST 1234 5698 7654 32', (s) => `Refund to ${s}, thanks`),
  sample('an OpenAI-style key', 'secret.api_key', `sk-proj-${generated(48)}`, (s) => `OPENAI_API_KEY=${s}`),
  sample('a Stripe secret key', 'secret.api_key', `sk_live_${generated(24, ALPHANUMERIC, 3)}`, (s) => `stripe: ${s}`),
  sample('a GitHub token', 'secret.api_key', `ghp_${generated(36, ALPHANUMERIC, 5)}`, (s) => `git remote uses ${s}`),
  sample('a labelled generic key', 'secret.api_key', generated(32, ALPHANUMERIC, 13), (s) => `api_key = "${s}"`),
  sample('an AWS access key id', 'secret.aws_access_key', `AKIA${generated(16, BASE32, 17)}`, (s) => `id ${s}`),
  sample(
    'an AWS secret access key',
    'secret.aws_secret_key',
    `${generated(20, ALPHANUMERIC, 19)}/${generated(19, ALPHANUMERIC, 23)}`,
    (s) => `aws_secret_access_key = ${s}`,
  ),
  sample('a JWT', 'secret.jwt', signedJwt(), (s) => `Authorization header was ${s}`),
  sample(
    'a PEM private key',
    'secret.private_key',
    generated(64, `${ALPHANUMERIC}+/`, 29),
    (s) => `-----BEGIN RSA PRIVATE KEY-----\n${s}\n-----END RSA PRIVATE KEY-----`,
  ),
  sample('a password assignment', 'secret.password', 'Tr0ub4dor&3x', (s) => `db password: ${s}`),
  sample(
    'URL credentials',
    'secret.password',
    's3cr3tPa55',
    (s) => `DATABASE_URL=postgres://app:${s}@db.internal:5432/app`,
  ),
];
