import { type TextWalkLimits, walkJsonText } from './json-text-walk.ts';
import {
  containsEmailAddress,
  containsIban,
  containsNationalId,
  containsPaymentCardNumber,
  containsPhoneNumber,
} from './personal-identifier-detectors.ts';
import { SensitiveContentRefusedError } from './protection.errors.ts';
import type { SensitiveContentReason } from './protection.schema.ts';
import { ScreenedText } from './screened-text.ts';
import { detectSecrets, detectSecretsUnderKey } from './secret-detectors.ts';
import { normalizeForScreening } from './text-normalization.ts';

/*
 * The long-term write screen (DESIGN §4). What each code means:
 * - pii.email            local@domain.tld (not @handles, pkg@1.2.3, icon@2x.png, git@host:repo remotes)
 * - pii.phone            formatted numbers only: leading +, (415) 555-2671, 415-555-2671, trunk-0 groups
 *                        (020 7946 0958), or 7–15 digits after a label such as "phone:" or "call me at"
 * - pii.national_id      US SSN, UK National Insurance number, Spanish DNI/NIE, labelled Indian Aadhaar
 * - pii.payment_card     13–19 digits as printed, known issuer range and length, Luhn
 * - pii.iban             country from the table, exact length, groups of four or none, mod 97
 * - secret.api_key       well-known key prefixes, or a random-looking value under a key/token/secret label
 * - secret.aws_access_key AKIA/ASIA + 16 base32 characters
 * - secret.aws_secret_key 40 base64 characters of mixed case with a digit, near an "aws"/"secret" label
 * - secret.jwt           three base64url segments whose header decodes to JSON with an `alg`
 * - secret.private_key   a PEM "-----BEGIN … PRIVATE KEY-----" line or a PuTTY key file header
 * - secret.password      a password-like value under a password label, URL credentials, Basic auth
 * - screen.*             fail-closed: the value was too large or deep, or not readable as JSON
 */

/** The screen's verdict. A refusal names the kinds of content found, sorted and de-duplicated, and never
 * the content itself. */
export type ScreenResult =
  | { readonly verdict: 'clean' }
  | { readonly verdict: 'refused'; readonly reasons: readonly SensitiveContentReason[] };

const CLEAN: ScreenResult = Object.freeze({ verdict: 'clean' });

type PersonalIdentifierReason = Extract<SensitiveContentReason, `pii.${string}`>;

/** Detectors that read numbers run only when the text holds a digit; the email detector only with an `@`. */
const PERSONAL_IDENTIFIER_DETECTORS: readonly {
  readonly reason: PersonalIdentifierReason;
  readonly needsDigit: boolean;
  readonly detects: (screened: ScreenedText) => boolean;
}[] = [
  {
    reason: 'pii.email',
    needsDigit: false,
    detects: (screened) => screened.text.includes('@') && containsEmailAddress(screened),
  },
  { reason: 'pii.payment_card', needsDigit: true, detects: containsPaymentCardNumber },
  { reason: 'pii.iban', needsDigit: true, detects: containsIban },
  { reason: 'pii.national_id', needsDigit: true, detects: containsNationalId },
  { reason: 'pii.phone', needsDigit: true, detects: containsPhoneNumber },
];

const DIGIT = /\d/;

const screenText = (text: string, key: string | undefined, found: Set<SensitiveContentReason>): void => {
  const screened = new ScreenedText(normalizeForScreening(text));
  const report = (reason: SensitiveContentReason): void => {
    found.add(reason);
  };
  detectSecrets(screened, report);
  if (key !== undefined) detectSecretsUnderKey(key, screened.text, report);
  const hasDigit = DIGIT.test(screened.text);
  for (const detector of PERSONAL_IDENTIFIER_DETECTORS) {
    if (found.has(detector.reason) || (detector.needsDigit && !hasDigit)) continue;
    if (detector.detects(screened)) found.add(detector.reason);
  }
};

/**
 * Screens a value bound for long-term memory for personal identifiers and secrets (see DESIGN §4). Every
 * string in it is read, object keys too, and numbers in their decimal form. Fail-closed: a value too large
 * or too deep to read in full is refused with `screen.limit_exceeded`, one the screen cannot read
 * (functions, class instances, a throwing getter) with `screen.unsupported_value`. It never throws.
 */
export const screenSensitiveContent = (value: unknown, limits?: TextWalkLimits): ScreenResult => {
  const found = new Set<SensitiveContentReason>();
  try {
    const outcome = walkJsonText(value, (text, key) => screenText(text, key, found), limits);
    if (outcome === 'limit_exceeded') found.add('screen.limit_exceeded');
    if (outcome === 'unsupported_value') found.add('screen.unsupported_value');
  } catch {
    found.add('screen.unsupported_value');
  }
  if (found.size === 0) return CLEAN;
  return Object.freeze({ verdict: 'refused', reasons: Object.freeze([...found].sort()) });
};

/** Throws SensitiveContentRefusedError unless the value screens clean: the guard before a long-term write. */
export const assertNoSensitiveContent = (value: unknown, limits?: TextWalkLimits): void => {
  const result = screenSensitiveContent(value, limits);
  if (result.verdict === 'refused') throw new SensitiveContentRefusedError(result.reasons);
};
