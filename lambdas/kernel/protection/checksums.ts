/**
 * Check-digit algorithms behind the identifier detectors. A checksum turns "looks like a number of the
 * right shape" into "is one with high probability", which is what keeps ordinary numbers clean.
 */

const ZERO = 48;
const isAsciiDigitCode = (code: number): boolean => code >= ZERO && code <= ZERO + 9;

/** Luhn (mod 10): true when the last digit is the check digit of the others. Payment cards and some
 * national ids use it. */
export const passesLuhn = (digits: string): boolean => {
  if (digits.length === 0) return false;
  let sum = 0;
  let doubled = false;
  for (let index = digits.length - 1; index >= 0; index--) {
    const code = digits.charCodeAt(index);
    if (!isAsciiDigitCode(code)) return false;
    let digit = code - ZERO;
    if (doubled) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    doubled = !doubled;
  }
  return sum % 10 === 0;
};

/** The Luhn check digit to append to `payload` (digits only). */
export const luhnCheckDigit = (payload: string): string => {
  for (let digit = 0; digit <= 9; digit++) if (passesLuhn(`${payload}${digit}`)) return String(digit);
  throw new RangeError('The payload is not a string of digits');
};

/** ISO 7064 MOD 97-10 remainder of digits and letters, a letter counting A = 10 … Z = 35; NaN for any
 * other character. */
export const mod97 = (alphanumeric: string): number => {
  let remainder = 0;
  for (let index = 0; index < alphanumeric.length; index++) {
    const code = alphanumeric.charCodeAt(index);
    if (isAsciiDigitCode(code)) remainder = (remainder * 10 + (code - ZERO)) % 97;
    else if (code >= 65 && code <= 90) remainder = (remainder * 100 + (code - 55)) % 97;
    else return Number.NaN;
  }
  return remainder;
};

/** An IBAN in electronic form (no spaces, upper case) whose check digits are valid: 02–98, and the
 * rearranged number leaves remainder 1 modulo 97. */
export const passesIbanChecksum = (iban: string): boolean => {
  const checkDigits = Number(iban.slice(2, 4));
  if (!(checkDigits >= 2 && checkDigits <= 98)) return false;
  return mod97(`${iban.slice(4)}${iban.slice(0, 4)}`) === 1;
};

/** The two IBAN check digits for a country code and a BBAN. */
export const ibanCheckDigits = (countryCode: string, bban: string): string =>
  String(98 - mod97(`${bban}${countryCode}00`)).padStart(2, '0');

// Verhoeff's dihedral-group tables, flattened to strings so that a lookup is a char code, not an index
// that may be out of range.
const VERHOEFF_MULTIPLICATION =
  '0123456789123406789523401789563401289567401239567859876043216598710432765982104387659321049876543210';
const VERHOEFF_PERMUTATION = '01234567891576283094580379614289160435279453126870428657390127938064157046913258';

/** Verhoeff: catches every single-digit error and adjacent transposition. India's Aadhaar number uses it. */
export const passesVerhoeff = (digits: string): boolean => {
  if (digits.length === 0) return false;
  let check = 0;
  for (let position = 0; position < digits.length; position++) {
    const code = digits.charCodeAt(digits.length - 1 - position);
    if (!isAsciiDigitCode(code)) return false;
    const permuted = VERHOEFF_PERMUTATION.charCodeAt((position % 8) * 10 + (code - ZERO)) - ZERO;
    check = VERHOEFF_MULTIPLICATION.charCodeAt(check * 10 + permuted) - ZERO;
  }
  return check === 0;
};

const SPANISH_ID_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/** The control letter of a Spanish DNI (8 digits) or NIE (X/Y/Z read as 0/1/2, then 7 digits). */
export const spanishIdControlLetter = (number: string): string => {
  const numeric = number.replace(/^[XYZ]/, (letter) => String('XYZ'.indexOf(letter)));
  return SPANISH_ID_LETTERS.charAt(Number(numeric) % 23);
};
