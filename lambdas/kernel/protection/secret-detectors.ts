import { Buffer } from 'node:buffer';
import type { SensitiveContentReason } from './protection.schema.ts';
import type { ScreenedText } from './screened-text.ts';

/*
 * Detectors for credentials and secrets. Well-known token formats are matched by their prefixes; anything
 * else counts as a secret only behind a label ("api_key=", "token:", "password:") and only when the value
 * itself looks like one, which is what keeps prose, identifiers and config keys clean. Every regex is
 * anchored on a literal and uses bounded or possessive-in-effect quantifiers, so scans stay linear.
 */

export type SecretReason = Extract<SensitiveContentReason, `secret.${string}`>;

const isDigitCode = (code: number): boolean => code >= 48 && code <= 57;
const isLetterCode = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

// ------------------------------------------------------------------------------------ value heuristics

const shannonEntropy = (value: string): number => {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let entropy = 0;
  for (const count of counts.values()) {
    const probability = count / value.length;
    entropy -= probability * Math.log2(probability);
  }
  return entropy;
};

/**
 * Whether a labelled value reads as a generated key rather than a word, an identifier or a slug. Its
 * longest alphanumeric stretch must have at least 16 characters and an entropy of at least 3 bits per
 * character (so `aaaa1111bbbb2222` stays clean), and either mix letters and digits back and forth (two
 * switches or more, so `getAccessToken2` and `my-config-value-2024` stay clean) or mix upper and lower
 * case the way random text does: at most 40% of neighbouring letters share a case, where camelCase and
 * words run to 60% and more (so `XMLHttpRequestFactory` stays clean).
 */
export const looksLikeGeneratedSecret = (value: string): boolean => {
  let bestStart = 0;
  let bestLength = 0;
  let start = 0;
  for (let index = 0; index <= value.length; index++) {
    const code = index < value.length ? value.charCodeAt(index) : Number.NaN;
    if (isDigitCode(code) || isLetterCode(code)) continue;
    if (index - start > bestLength) {
      bestStart = start;
      bestLength = index - start;
    }
    start = index + 1;
  }
  if (bestLength < 16) return false;
  const segment = value.slice(bestStart, bestStart + bestLength);
  let digits = 0;
  let letters = 0;
  let switches = 0;
  let upper = 0;
  let lowerPairs = 0;
  let upperPairs = 0;
  let previous: 'digit' | 'lower' | 'upper' | undefined;
  for (let index = 0; index < segment.length; index++) {
    const code = segment.charCodeAt(index);
    const kind = isDigitCode(code) ? 'digit' : code <= 90 ? 'upper' : 'lower';
    if (kind === 'digit') digits++;
    else letters++;
    if (kind === 'upper') upper++;
    if (previous !== undefined && (previous === 'digit') !== (kind === 'digit')) switches++;
    if (previous === kind && kind === 'lower') lowerPairs++;
    if (previous === kind && kind === 'upper') upperPairs++;
    previous = kind;
  }
  const pairs = segment.length - 1;
  const lower = letters - upper;
  const mixesDigits = digits >= 2 && letters >= 2 && switches >= 2;
  const mixesCase = upper >= 2 && lower >= 2 && lowerPairs <= 0.4 * pairs && upperPairs <= 0.4 * pairs;
  return (mixesDigits || mixesCase) && shannonEntropy(segment) >= 3;
};

const PASSWORD_PLACEHOLDERS = new Set([
  'changeme',
  'empty',
  'example',
  'hidden',
  'none',
  'null',
  'optional',
  'passphrase',
  'password',
  'passwd',
  'placeholder',
  'redacted',
  'required',
  'secret',
  'undefined',
  'unknown',
  'unset',
  'yourpassword',
]);
const TEMPLATED = /^[$%{<[(]|\{\{|\$\{|redacted|placeholder|example|changeme/i;
const REPEATED_CHARACTER = /^(.)\1*$/;
const DOTTED_IDENTIFIER = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?$/;
const ENVIRONMENT_VARIABLE_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;

/**
 * Whether a value given to a password label is a password rather than a placeholder or a reference:
 * not masked (`********`), templated (`${DB_PASSWORD}`, `<your password>`), a dotted reference
 * (`process.env.DB_PASSWORD`), an environment variable name or a placeholder word; and either 6+
 * characters from two classes (lower, upper, digit, symbol) or 12+ characters. Prose (four or more words)
 * is not a password.
 */
export const looksLikePassword = (value: string): boolean => {
  const trimmed = value.trim();
  if (trimmed.length < 6 || trimmed.length > 128 || trimmed.split(/\s+/).length >= 4) return false;
  if (TEMPLATED.test(trimmed) || REPEATED_CHARACTER.test(trimmed) || DOTTED_IDENTIFIER.test(trimmed)) return false;
  if (ENVIRONMENT_VARIABLE_NAME.test(trimmed)) return false;
  if (PASSWORD_PLACEHOLDERS.has(trimmed.toLowerCase().replace(/[^a-z]/g, ''))) return false;
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^\sA-Za-z\d]/].filter((pattern) => pattern.test(trimmed)).length;
  return classes >= 2 || trimmed.length >= 12;
};

// ------------------------------------------------------------------------------------ well-known keys

/** Token formats that announce themselves by a prefix. The `sk-` family is also used for slugs, so its
 * body must look generated; Slack tokens always carry digits. */
const KNOWN_API_KEY = new RegExp(
  `(?<![A-Za-z0-9])(?:${[
    'sk-[A-Za-z0-9_-]{20,}', // OpenAI, Anthropic (sk-ant-…), DeepSeek and others
    '(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}', // Stripe secret, publishable and restricted keys
    'whsec_[A-Za-z0-9+/=]{24,}', // Stripe webhook signing secret
    'gh[pousr]_[A-Za-z0-9]{36,}', // GitHub tokens
    'github_pat_[A-Za-z0-9_]{40,}', // GitHub fine-grained personal access token
    'xox[abposr]-[A-Za-z0-9-]{10,}', // Slack tokens
    'xapp-\\d-[A-Za-z0-9-]{10,}', // Slack app-level token
    'AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])', // Google API key
    'ya29\\.[0-9A-Za-z_-]{30,}', // Google OAuth access token
    'glpat-[A-Za-z0-9_-]{20,}', // GitLab personal access token
    'glptt-[A-Za-z0-9_-]{20,}', // GitLab pipeline trigger token
    'npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])', // npm
    'pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}', // PyPI
    'hf_[A-Za-z0-9]{34,}', // Hugging Face
    'SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}', // SendGrid
    'dop_v1_[a-f0-9]{64}', // DigitalOcean
    'shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}', // Shopify
    'sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}', // Square
    'SK[0-9a-f]{32}(?![A-Za-z0-9])', // Twilio API key
    'key-[0-9a-f]{32}(?![A-Za-z0-9])', // Mailgun
    'lin_api_[A-Za-z0-9]{40}', // Linear
    'dapi[a-f0-9]{32}(?![A-Za-z0-9])', // Databricks
    '(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{40,}={0,2}', // Azure storage and service bus
  ].join('|')})`,
  'g',
);

const isAcceptedKnownKey = (token: string): boolean => {
  if (token.startsWith('sk-')) return looksLikeGeneratedSecret(token.slice(3));
  if (token.startsWith('xox') || token.startsWith('xapp-')) return /\d/.test(token.slice(5));
  return true;
};

// -------------------------------------------------------------------------------------- labelled values

/** `label = value`, `label: value`, `"label": "value"`, `label => value`; the value stops at whitespace,
 * quotes, commas, semicolons and angle brackets, and must sit on the label's line. */
const ASSIGNED_SECRET =
  /(api[ _.-]?key|apikey|access[ _.-]?key|secret[ _.-]?(?:access[ _.-]?)?key|client[ _.-]?secret|app[ _.-]?secret|api[ _.-]?secret|auth[ _.-]?token|access[ _.-]?token|refresh[ _.-]?token|api[ _.-]?token|bearer[ _.-]?token|private[ _.-]?key|signing[ _.-]?key|encryption[ _.-]?key|master[ _.-]?key|secret|token|password|passwd|passphrase)["']?[ \t]{0,3}(?:=>|:=|[:=])[ \t]{0,3}["'`]?([^\s"'`,;<>]{1,512})/gi;
const PASSWORD_LABEL = /^(?:password|passwd|passphrase)$/i;
// A bare "token" after these words is a pagination or anti-forgery token, not a credential.
const NON_CREDENTIAL_TOKEN_CONTEXT = /(?:next|page|continuation|pagination|sync|cursor|csrf|xsrf|idempotency)[ _.-]?$/i;
const TRAILING_PUNCTUATION = /[.)\]}]+$/;

const AUTHORIZATION_SCHEME = /\b(bearer|basic)[ \t]+([A-Za-z0-9._~+/-]{8,}={0,2})(?![A-Za-z0-9._~+/=-])/gi;
const PRINTABLE_BASIC_CREDENTIALS = /^[!-9;-~]{1,128}:[ -~]{1,256}$/;

const URL_CREDENTIALS = /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s/:@]{0,128}:([^\s/@]{1,256})@[A-Za-z0-9[]/gi;
const URL_PASSWORD_PLACEHOLDER = /^(?:pass(?:word)?|pwd|secret|x+|\*+|\.\.\.)$/i;

// -------------------------------------------------------------------------------------------- detectors

const AWS_ACCESS_KEY_ID = /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z2-7]{16}(?![A-Za-z0-9])/;
const FORTY_CHARACTER_BASE64 = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
const AWS_SECRET_LABEL = /aws|secret/i;
const MIXED_CASE_WITH_DIGIT = /^(?=[^a-z]*[a-z])(?=[^A-Z]*[A-Z])(?=\D*\d)/;

const containsAwsSecretKey = (text: string): boolean => {
  if (!AWS_SECRET_LABEL.test(text)) return false;
  for (const match of text.matchAll(FORTY_CHARACTER_BASE64)) {
    if (!MIXED_CASE_WITH_DIGIT.test(match[0])) continue;
    const near = `${text.slice(Math.max(0, match.index - 100), match.index)} ${text.slice(match.index + 40, match.index + 80)}`;
    if (AWS_SECRET_LABEL.test(near)) return true;
  }
  return false;
};

const JSON_WEB_TOKEN = /(?<![A-Za-z0-9_-])ey[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g;

const decodesToJoseHeader = (segment: string): boolean => {
  if (segment.length > 4096) return false;
  try {
    const header: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
};

/** Three base64url segments whose first decodes to a JSON object with an `alg`: a signed JWT. */
const containsJsonWebToken = (text: string): boolean => {
  for (const match of text.matchAll(JSON_WEB_TOKEN)) {
    if (decodesToJoseHeader(match[0].slice(0, match[0].indexOf('.')))) return true;
  }
  return false;
};

const PRIVATE_KEY = /-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d+:/;

const reportLabelledValue = (text: string, report: (reason: SecretReason) => void): void => {
  for (const match of text.matchAll(ASSIGNED_SECRET)) {
    const label = match[1] ?? '';
    const value = (match[2] ?? '').replace(TRAILING_PUNCTUATION, '');
    if (PASSWORD_LABEL.test(label)) {
      if (looksLikePassword(value)) report('secret.password');
      continue;
    }
    const isBareWord = /^(?:token|secret)$/i.test(label);
    if (isBareWord && NON_CREDENTIAL_TOKEN_CONTEXT.test(text.slice(Math.max(0, match.index - 16), match.index)))
      continue;
    if (looksLikeGeneratedSecret(value)) report('secret.api_key');
  }
  for (const match of text.matchAll(AUTHORIZATION_SCHEME)) {
    const credentials = match[2] ?? '';
    if ((match[1] ?? '').toLowerCase() === 'bearer') {
      if (looksLikeGeneratedSecret(credentials)) report('secret.api_key');
    } else if (PRINTABLE_BASIC_CREDENTIALS.test(Buffer.from(credentials, 'base64').toString('latin1'))) {
      report('secret.password');
    }
  }
  if (text.includes('://')) {
    for (const match of text.matchAll(URL_CREDENTIALS)) {
      const password = match[1] ?? '';
      if (!URL_PASSWORD_PLACEHOLDER.test(password) && !TEMPLATED.test(password)) report('secret.password');
    }
  }
};

/** Reports every kind of secret found in one normalized string, each kind at most once per call. */
export const detectSecrets = ({ text }: ScreenedText, report: (reason: SecretReason) => void): void => {
  if ((text.includes('PRIVATE KEY') || text.includes('PuTTY-User-Key-File')) && PRIVATE_KEY.test(text)) {
    report('secret.private_key');
  }
  if (text.includes('ey') && containsJsonWebToken(text)) report('secret.jwt');
  if ((text.includes('AKIA') || text.includes('ASIA')) && AWS_ACCESS_KEY_ID.test(text)) report('secret.aws_access_key');
  if (containsAwsSecretKey(text)) report('secret.aws_secret_key');
  for (const match of text.matchAll(KNOWN_API_KEY)) {
    if (isAcceptedKnownKey(match[0])) {
      report('secret.api_key');
      break;
    }
  }
  reportLabelledValue(text, report);
};

// ----------------------------------------------------------------------------------- structured values

const PASSWORD_KEY = /(?:password|passwd|passphrase)$/;
const SECRET_KEY =
  /(?:apikey|accesskey|secretkey|clientsecret|appsecret|apisecret|authtoken|accesstoken|refreshtoken|apitoken|bearertoken|privatekey|signingkey|encryptionkey|masterkey|secret|token)$/;
const NON_CREDENTIAL_TOKEN_KEY = /(?:next|page|continuation|pagination|sync|cursor|csrf|xsrf|idempotency)token$/;
const AWS_SECRET_KEY_VALUE = /^[A-Za-z0-9/+]{40}$/;

/**
 * Reads a string value together with the object key it sits under, for the secrets whose label is the
 * key: `{ "apiKey": "…" }`, `{ "db_password": "…" }`, `{ "aws_secret_access_key": "…" }`.
 */
export const detectSecretsUnderKey = (key: string, value: string, report: (reason: SecretReason) => void): void => {
  const name = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (name.length === 0 || value.length === 0) return;
  if (PASSWORD_KEY.test(name)) {
    if (looksLikePassword(value)) report('secret.password');
    return;
  }
  if ((name.includes('aws') || name.includes('secret')) && AWS_SECRET_KEY_VALUE.test(value)) {
    if (MIXED_CASE_WITH_DIGIT.test(value)) report('secret.aws_secret_key');
  }
  if (SECRET_KEY.test(name) && !NON_CREDENTIAL_TOKEN_KEY.test(name) && looksLikeGeneratedSecret(value)) {
    report('secret.api_key');
  }
};
