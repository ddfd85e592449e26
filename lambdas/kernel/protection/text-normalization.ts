const BEYOND_PRINTABLE_ASCII = /[^\t\n\r -~]/;
// Soft hyphen, zero-width spaces and joiners, word joiner, invisible operators, byte-order mark.
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u2060-\u2064\ufeff]/g;
const UNICODE_SPACES = /[\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/g;
const UNICODE_DASHES = /[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]/g;

/**
 * Folds the look-alikes that copy-and-paste brings in, so a detector written for ASCII still sees them:
 * full-width digits and letters (NFKC), no-break and thin spaces inside phone and card numbers, Unicode
 * dashes, and zero-width characters dropped between digits. Plain ASCII text is returned as is, which is
 * the common case and costs one scan.
 */
export const normalizeForScreening = (text: string): string => {
  if (!BEYOND_PRINTABLE_ASCII.test(text)) return text;
  return text.normalize('NFKC').replace(INVISIBLE, '').replace(UNICODE_SPACES, ' ').replace(UNICODE_DASHES, '-');
};
