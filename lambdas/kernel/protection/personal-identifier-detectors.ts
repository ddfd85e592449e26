import { passesIbanChecksum, passesLuhn, passesVerhoeff, spanishIdControlLetter } from './checksums.ts';
import type { DigitChain, DigitRun } from './digit-runs.ts';
import type { ScreenedText } from './screened-text.ts';

/*
 * Detectors for personal identifiers. Each answers only "is there one": nothing about where or what, so
 * nothing downstream can echo a match. Every regex here is anchored on a literal or a character class and
 * uses bounded quantifiers only, so a scan is linear in the text.
 */

const isDigitCode = (code: number): boolean => code >= 48 && code <= 57;
const isLetterCode = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
const isAlphanumericCode = (code: number): boolean => isDigitCode(code) || isLetterCode(code);

// ---------------------------------------------------------------------------------------------- email

const isEmailLocalCode = (code: number): boolean =>
  isAlphanumericCode(code) || code === 46 || code === 95 || code === 37 || code === 43 || code === 45;
const isEmailDomainCode = (code: number): boolean => isAlphanumericCode(code) || code === 46 || code === 45;
const DOMAIN_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const TOP_LEVEL_DOMAIN = /^[A-Za-z]{2,24}$/;
// `icon@2x.png`, `bundle@1.5x.webp`: asset names, not addresses.
const FILE_EXTENSION =
  /^(?:png|jpe?g|gif|svg|webp|avif|ico|bmp|pdf|txt|csv|json|ya?ml|toml|xml|html?|css|scss|m?js|cjs|jsx|tsx?|lock|log|map|wasm)$/i;
const IMAGE_DENSITY = /^\d+(?:\.\d+)?x$/i;

const isEmailDomain = (domain: string): boolean => {
  const labels = domain.split('.');
  const topLevel = labels[labels.length - 1] ?? '';
  return (
    labels.length >= 2 &&
    labels.every((label) => DOMAIN_LABEL.test(label)) &&
    TOP_LEVEL_DOMAIN.test(topLevel) &&
    !FILE_EXTENSION.test(topLevel) &&
    !IMAGE_DENSITY.test(labels[0] ?? '')
  );
};

/**
 * `local@domain.tld`, found from each `@` outwards rather than by a regex, because `[…]+@` backtracks
 * quadratically on long runs without an `@`. Not emails: `@handles`, `user@localhost`, `pkg@1.2.3`,
 * `icon@2x.png`, and `git@host:org/repo` SSH remotes.
 */
export const containsEmailAddress = ({ text }: ScreenedText): boolean => {
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > 0 && at - start < 64 && isEmailLocalCode(text.charCodeAt(start - 1))) start--;
    while (start < at && text.charCodeAt(start) === 46) start++;
    if (start === at) continue;
    let end = at + 1;
    while (end < text.length && end - at <= 254 && isEmailDomainCode(text.charCodeAt(end))) end++;
    while (end > at + 1 && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end--;
    const isScpRemote = text.slice(start, at) === 'git' && text.charAt(end) === ':';
    if (!isScpRemote && isEmailDomain(text.slice(at + 1, end))) return true;
  }
  return false;
};

// ---------------------------------------------------------------------------------------------- phone

const isPhoneSeparatorCode = (code: number): boolean =>
  code === 32 || code === 45 || code === 46 || code === 40 || code === 41;

/** After a `+`: digits in groups, separated by at most two of space, hyphen, dot or parenthesis; 8–15
 * digits in two or more groups (a country code of at most three digits, or four for `+1` area codes
 * written together), or 10–15 digits written as one group. */
const readsAsInternationalNumber = (text: string, from: number): boolean => {
  let digits = 0;
  let groups = 0;
  let firstGroupDigits = 0;
  let inGroup = false;
  let separatorRun = 0;
  for (let index = from; index <= text.length; index++) {
    const code = index < text.length ? text.charCodeAt(index) : Number.NaN;
    if (isDigitCode(code)) {
      if (!inGroup) groups++;
      inGroup = true;
      digits++;
      if (groups === 1) firstGroupDigits++;
      separatorRun = 0;
      if (digits > 15) return false;
      continue;
    }
    if (inGroup) {
      if (isLetterCode(code) || code === 95) return false;
      const countryCodeFits = firstGroupDigits <= 3 || (firstGroupDigits === 4 && text.charCodeAt(from) === 49);
      if (groups >= 2 && countryCodeFits && digits >= 8) return true;
      if (groups === 1 && digits >= 10) return true;
      inGroup = false;
    }
    if (!isPhoneSeparatorCode(code) || ++separatorRun > 2) return false;
  }
  return false;
};

const containsInternationalPhone = (text: string): boolean => {
  for (let plus = text.indexOf('+'); plus !== -1; plus = text.indexOf('+', plus + 1)) {
    const before = plus > 0 ? text.charCodeAt(plus - 1) : Number.NaN;
    if (isAlphanumericCode(before) || before === 95 || before === 43) continue;
    if (isDigitCode(text.charCodeAt(plus + 1)) && readsAsInternationalNumber(text, plus + 1)) return true;
  }
  return false;
};

const sameLengths = (lengths: readonly number[], expected: readonly number[]): boolean =>
  lengths.length === expected.length && lengths.every((length, index) => length === expected[index]);

/** North American 3-3-4 with one consistent hyphen or dot separator (`415-555-2671`, `415.555.2671`), an
 * area code starting 2–9; with spaces only after a leading 1 (`1 415 555 2671`), because three numbers in
 * a row (`sizes 250 300 1200`) are common in ordinary text. */
const isNorthAmericanNumber = (chain: DigitChain): boolean => {
  if (chain.separator === '' || chain.attachedStart || chain.attachedEnd) return false;
  if (sameLengths(chain.lengths, [3, 3, 4])) return chain.separator !== ' ' && chain.digits.charCodeAt(0) >= 50;
  return sameLengths(chain.lengths, [1, 3, 3, 4]) && chain.digits.startsWith('1') && chain.digits.charCodeAt(1) >= 50;
};

/** National numbers with a trunk 0, written in groups (`020 7946 0958`, `07700 900123`, `030 12345678`,
 * `01 23 45 67 89`): 10–11 digits. With `00` they are international (`0044 20 7946 0958`): 11–17. */
const isTrunkPrefixedNumber = (chain: DigitChain): boolean => {
  const { lengths, digits } = chain;
  if ((chain.separator !== ' ' && chain.separator !== '-') || chain.attachedStart || chain.attachedEnd) return false;
  if (lengths.length > 6 || !digits.startsWith('0')) return false;
  const firstGroup = lengths[0] ?? 0;
  if (digits.startsWith('00')) return firstGroup >= 3 && firstGroup <= 5 && digits.length >= 11 && digits.length <= 17;
  return (
    firstGroup >= 2 &&
    firstGroup <= 5 &&
    lengths.every((length) => length >= 2 && length <= 8) &&
    digits.length >= 10 &&
    digits.length <= 11
  );
};

const PARENTHESIZED_AREA_CODE = /(?<![\w)])(?:\+?1[ .-]?)?\([2-9]\d{2}\)[ .-]?\d{3}[ .-]?\d{4}(?![\w-]|\.\d)/;

const PHONE_LABEL =
  /\b(?:phone|telephone|tel|mobile|cell(?:phone)?|fax|whatsapp|sms|call\s+me|text\s+me|reach\s+me|ring\s+me)\b(?:\s{0,3}(?:number|no\.?|#))?\s{0,3}(?:is\s+|at\s+|on\s+|[:=-]\s{0,3})?(\+?\(?\d[\d ().-]{5,22}\d)(?![\dA-Za-z])/gi;
const DATE_OR_TIME = /^(?:\d{4}[./-]\d{1,2}[./-]\d{1,2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4})$/;

const countDigits = (value: string): number => {
  let count = 0;
  for (let index = 0; index < value.length; index++) if (isDigitCode(value.charCodeAt(index))) count++;
  return count;
};

/**
 * A phone number is refused when it is formatted like one, because formatting is what tells a phone
 * number from an order id or an amount: a leading `+`, a parenthesized area code, a 3-3-4 or trunk-0
 * grouping, or 7–15 digits right after a label such as "phone:", "tel", "mobile" or "call me at". A bare
 * digit run (`order 5551234567`) is not a phone number.
 */
export const containsPhoneNumber = (screened: ScreenedText): boolean => {
  const { text } = screened;
  if (containsInternationalPhone(text)) return true;
  if (screened.digitChains.some((chain) => isNorthAmericanNumber(chain) || isTrunkPrefixedNumber(chain))) return true;
  if (text.includes('(') && PARENTHESIZED_AREA_CODE.test(text)) return true;
  for (const match of text.matchAll(PHONE_LABEL)) {
    const number = match[1] ?? '';
    const digits = countDigits(number);
    if (digits >= 7 && digits <= 15 && !DATE_OR_TIME.test(number.trim())) return true;
  }
  return false;
};

// -------------------------------------------------------------------------------------- national ids

/** US Social Security number rules: area not 000, 666 or 900–999; group not 00; serial not 0000. */
const isValidSocialSecurityNumber = (area: string, group: string, serial: string): boolean => {
  const areaNumber = Number(area);
  return areaNumber !== 0 && areaNumber !== 666 && areaNumber < 900 && group !== '00' && serial !== '0000';
};

const isFormattedSocialSecurityNumber = (chain: DigitChain): boolean =>
  chain.separator === '-' &&
  !chain.attachedStart &&
  !chain.attachedEnd &&
  sameLengths(chain.lengths, [3, 2, 4]) &&
  isValidSocialSecurityNumber(chain.digits.slice(0, 3), chain.digits.slice(3, 5), chain.digits.slice(5));

const LABELLED_SOCIAL_SECURITY_NUMBER =
  /\b(?:ssn|social\s+security(?:\s+(?:number|no\.?|#))?)\b\D{0,12}?(?<![\dA-Za-z])(\d{3})([ -]?)(\d{2})\2(\d{4})(?![\dA-Za-z])/gi;

/** India's Aadhaar number, 12 digits (first 2–9, Verhoeff check digit last), printed 4-4-4 or unbroken,
 * after an "Aadhaar" or "UID" label: unlabelled, three 4-digit numbers in a row (`2019 2020 2021`) would
 * pass one time in ten. */
const LABELLED_AADHAAR_NUMBER =
  /\b(?:aadhaa?r|uid(?:ai)?)\b(?:\s{0,3}(?:number|no\.?|#|card))?\s{0,3}[:#=-]?\s{0,3}([2-9]\d{3})([ -]?)(\d{4})\2(\d{4})(?![\dA-Za-z])/gi;

const UK_NATIONAL_INSURANCE_NUMBER =
  /(?<![A-Za-z0-9])([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]) ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])/gi;
const UK_UNALLOCATED_PREFIXES = new Set(['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ']);

const SPANISH_DNI_OR_NIE = /(?<![A-Za-z0-9])(\d{8}|[XYZ]-?\d{7})-?([A-Z])(?![A-Za-z0-9])/g;

/**
 * National identity numbers, each with its format's own validity rule so that plain numbers stay clean:
 * - US Social Security number: `AAA-GG-SSSS` with the invalid ranges excluded (area 000, 666, 900–999;
 *   group 00; serial 0000); with spaces or no separators only right after "SSN" or "social security".
 * - UK National Insurance number: two prefix letters from the allocated set, six digits, suffix A–D,
 *   spaces optional (`AB 12 34 56 C`).
 * - Spanish DNI (8 digits) and NIE (X/Y/Z + 7 digits) with their mod-23 control letter.
 * - Indian Aadhaar number with its Verhoeff check digit, after an "Aadhaar" or "UID" label.
 */
export const containsNationalId = (screened: ScreenedText): boolean => {
  const { text } = screened;
  if (screened.digitChains.some(isFormattedSocialSecurityNumber)) return true;
  for (const match of text.matchAll(LABELLED_SOCIAL_SECURITY_NUMBER)) {
    if (isValidSocialSecurityNumber(match[1] ?? '', match[3] ?? '', match[4] ?? '')) return true;
  }
  for (const match of text.matchAll(LABELLED_AADHAAR_NUMBER)) {
    if (passesVerhoeff(`${match[1]}${match[3]}${match[4]}`)) return true;
  }
  for (const match of text.matchAll(UK_NATIONAL_INSURANCE_NUMBER)) {
    if (!UK_UNALLOCATED_PREFIXES.has((match[1] ?? '').toUpperCase())) return true;
  }
  for (const match of text.matchAll(SPANISH_DNI_OR_NIE)) {
    if (spanishIdControlLetter((match[1] ?? '').replace('-', '')) === match[2]) return true;
  }
  return false;
};

// ------------------------------------------------------------------------------------- payment cards

const prefixOf = (digits: string, length: number): number => Number(digits.slice(0, length));
const between = (value: number, low: number, high: number): boolean => value >= low && value <= high;
const MAESTRO_PREFIXES = new Set([5018, 5020, 5038, 5893, 6304, 6759, 6761, 6762, 6763]);

/** Issuer identification ranges of the card networks in wide use, each with its card lengths. */
export const isKnownCardNumberShape = (digits: string): boolean => {
  const length = digits.length;
  const two = prefixOf(digits, 2);
  const three = prefixOf(digits, 3);
  const four = prefixOf(digits, 4);
  if (digits.startsWith('4')) return length === 13 || length === 16 || length === 19; // Visa
  if (between(two, 51, 55) || between(four, 2221, 2720)) return length === 16; // Mastercard
  if (two === 34 || two === 37) return length === 15; // American Express
  if (four === 6011 || between(three, 644, 649) || two === 65) return between(length, 16, 19); // Discover
  if (two === 62) return between(length, 16, 19); // UnionPay (and Discover's 622126–622925)
  if (between(four, 3528, 3589)) return between(length, 16, 19); // JCB
  if (between(three, 300, 305) || two === 36 || two === 38 || two === 39) return between(length, 14, 19); // Diners
  if (between(four, 2200, 2204)) return between(length, 16, 19); // Mir
  if (MAESTRO_PREFIXES.has(four)) return between(length, 13, 19); // Maestro
  return false;
};

const runHoldsCardNumber = (run: DigitRun): boolean => {
  const { groups } = run;
  for (let first = 0; first < groups.length; first++) {
    const firstGroup = groups[first];
    if (firstGroup === undefined || (first === 0 ? run.gluedStart : firstGroup.separatorBefore === '.')) continue;
    // Every issuer range starts with 2, 3, 4, 5 or 6.
    const leading = firstGroup.digits.charCodeAt(0);
    if (leading < 50 || leading > 54) continue;
    let digits = '';
    // How cards are printed: one unbroken group, groups of four with a shorter last group, or the 4-6-5
    // and 4-6-4 of American Express and Diners.
    let allFourBeforeLast = true;
    for (let last = first; last < groups.length; last++) {
      const group = groups[last];
      if (group === undefined || (last > first && group.separatorBefore === '.')) break;
      const groupLength = group.digits.length;
      if (last > first) allFourBeforeLast &&= (groups[last - 1]?.digits.length ?? 0) === 4;
      digits += group.digits;
      if (digits.length > 19) break;
      if (digits.length < 13) continue;
      const next = groups[last + 1];
      const endsCleanly = next === undefined ? !run.gluedEnd : next.separatorBefore !== '.';
      const count = last - first + 1;
      const printed =
        count === 1 ||
        (allFourBeforeLast && groupLength <= 4) ||
        (count === 3 && digits.length - groupLength === 10 && firstGroup.digits.length === 4 && groupLength >= 4);
      if (endsCleanly && printed && isKnownCardNumberShape(digits) && passesLuhn(digits)) return true;
    }
  }
  return false;
};

/**
 * A payment card number: 13–19 digits, unbroken or grouped by spaces or hyphens the way cards are printed,
 * in a known issuer range of the right length, passing Luhn. Digits glued to letters (`ORD4111…`) or
 * after a decimal point are not card numbers.
 */
export const containsPaymentCardNumber = (screened: ScreenedText): boolean =>
  screened.digitRuns.some(runHoldsCardNumber);

// ------------------------------------------------------------------------------------------------ IBAN

/** Total IBAN length by country, for the SEPA area and the other countries most often seen. */
// biome-ignore format: a table reads better in rows
export const IBAN_LENGTHS: Readonly<Record<string, number>> = Object.freeze({
  AD: 24, AE: 23, AT: 20, BE: 16, BG: 22, BH: 22, BR: 29, CH: 21, CY: 28, CZ: 24, DE: 22, DK: 18, EE: 20,
  ES: 24, FI: 18, FO: 18, FR: 27, GB: 22, GI: 23, GL: 18, GR: 27, HR: 21, HU: 28, IE: 22, IL: 23, IS: 26,
  IT: 27, KW: 30, KZ: 20, LB: 28, LI: 21, LT: 20, LU: 20, LV: 21, MC: 27, MT: 31, NL: 18, NO: 15, PL: 28,
  PT: 25, QA: 29, RO: 24, SA: 24, SE: 24, SI: 19, SK: 24, SM: 27, TN: 24, TR: 26, UA: 29,
});

const IBAN_START = /(?<![A-Za-z0-9])([A-Z]{2})\d{2}/g;
const isUpperAlphanumericCode = (code: number): boolean => isDigitCode(code) || (code >= 65 && code <= 90);

/** Reads the IBAN that may start at `start`: exactly the country's length in digits and capitals, in
 * electronic form or printed in groups of four, then a boundary. */
const readIban = (text: string, start: number, length: number): string | undefined => {
  let iban = text.slice(start, start + 4);
  let index = start + 4;
  while (iban.length < length && index < text.length) {
    const code = text.charCodeAt(index);
    if (isUpperAlphanumericCode(code)) iban += text.charAt(index);
    else if (!(code === 32 && iban.length % 4 === 0 && isUpperAlphanumericCode(text.charCodeAt(index + 1)))) break;
    index++;
  }
  if (iban.length !== length || isAlphanumericCode(text.charCodeAt(index))) return undefined;
  return iban;
};

/** An IBAN: a country from the table, two check digits, the country's BBAN length, and the mod-97 check. */
export const containsIban = ({ text }: ScreenedText): boolean => {
  for (const match of text.matchAll(IBAN_START)) {
    const length = IBAN_LENGTHS[match[1] ?? ''];
    if (length === undefined) continue;
    const iban = readIban(text, match.index, length);
    if (iban !== undefined && passesIbanChecksum(iban)) return true;
  }
  return false;
};
