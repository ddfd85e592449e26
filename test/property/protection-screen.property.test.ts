import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ibanCheckDigits, luhnCheckDigit } from '../../lambdas/kernel/protection/checksums.ts';
import { IBAN_LENGTHS } from '../../lambdas/kernel/protection/personal-identifier-detectors.ts';
import { SensitiveContentReason } from '../../lambdas/kernel/protection/protection.schema.ts';
import { screenSensitiveContent } from '../../lambdas/kernel/protection/sensitive-content-screen.ts';

const KNOWN_REASONS = new Set<string>(SensitiveContentReason.options);

/** Any UTF-16 text, lone surrogates included, to sit on either side of an embedded identifier. */
const anyText = fc.string({ unit: 'binary', maxLength: 40 });

const digitString = (length: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: length, maxLength: length }).map((digits) => digits.join(''));

/** Issuer prefixes and lengths the screen knows, from which Luhn-completed card numbers are built. */
const CARD_SHAPES: readonly (readonly [prefix: string, length: number])[] = [
  ['4', 16],
  ['4', 13],
  ['4', 19],
  ['51', 16],
  ['55', 16],
  ['2221', 16],
  ['2720', 16],
  ['34', 15],
  ['37', 15],
  ['6011', 16],
  ['65', 19],
  ['3528', 16],
  ['36', 14],
  ['62', 18],
];

const cardNumber = fc
  .constantFrom(...CARD_SHAPES)
  .chain(([prefix, length]) => digitString(length - prefix.length - 1).map((body) => `${prefix}${body}`))
  .map((payload) => `${payload}${luhnCheckDigit(payload)}`);

const groupsOfFour = (value: string, separator: string): string => (value.match(/.{1,4}/g) ?? []).join(separator);

const printedCardNumber = fc
  .tuple(cardNumber, fc.constantFrom('', ' ', '-'))
  .map(([digits, separator]) => (separator === '' ? digits : groupsOfFour(digits, separator)));

const IBAN_COUNTRIES = Object.keys(IBAN_LENGTHS);
const BBAN_CHARACTERS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');

const iban = fc.constantFrom(...IBAN_COUNTRIES).chain((country) =>
  fc
    .array(fc.constantFrom(...BBAN_CHARACTERS), {
      minLength: (IBAN_LENGTHS[country] ?? 0) - 4,
      maxLength: (IBAN_LENGTHS[country] ?? 0) - 4,
    })
    .map((characters) => {
      const bban = characters.join('');
      return `${country}${ibanCheckDigits(country, bban)}${bban}`;
    }),
);

const printedIban = fc
  .tuple(iban, fc.boolean())
  .map(([electronic, printed]) => (printed ? groupsOfFour(electronic, ' ') : electronic));

const reasonsOf = (value: unknown): readonly string[] => {
  const result = screenSensitiveContent(value);
  return result.verdict === 'refused' ? result.reasons : [];
};

describe('Property: sensitive-content screen', () => {
  it('refuses any text with a valid card number in it', () => {
    fc.assert(
      fc.property(anyText, printedCardNumber, anyText, (before, card, after) => {
        expect(reasonsOf(`${before} ${card} ${after}`)).toContain('pii.payment_card');
      }),
    );
  });

  it('refuses any text with a valid IBAN in it', () => {
    fc.assert(
      fc.property(anyText, printedIban, anyText, (before, value, after) => {
        expect(reasonsOf(`${before} ${value} ${after}`)).toContain('pii.iban');
      }),
    );
  });

  it('never throws and answers only known codes, sorted and unique, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const result = screenSensitiveContent(value);

        if (result.verdict === 'clean') {
          expect(Object.keys(result)).toEqual(['verdict']);
          return;
        }
        expect(Object.keys(result).sort()).toEqual(['reasons', 'verdict']);
        expect(result.reasons.length).toBeGreaterThan(0);
        expect([...new Set(result.reasons)].sort()).toEqual(result.reasons);
        for (const reason of result.reasons) expect(KNOWN_REASONS.has(reason)).toBe(true);
      }),
    );
  });

  it('never echoes the input: nothing in the result but the fixed codes', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ minLength: 6 }), (value, text) => {
        const serialized = JSON.stringify(screenSensitiveContent([value, text]));
        const vocabulary = `${[...KNOWN_REASONS].join(' ')} verdict clean refused reasons`;
        for (let start = 0; start + 6 <= text.length; start++) {
          const piece = text.slice(start, start + 6);
          if (!vocabulary.includes(piece)) expect(serialized).not.toContain(piece);
        }
      }),
    );
  });

  it('keeps short alphanumeric words separated by spaces clean', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9]{1,8}$/);
    fc.assert(
      fc.property(fc.array(word, { maxLength: 40 }), (words) => {
        expect(screenSensitiveContent(words.join(' '))).toEqual({ verdict: 'clean' });
      }),
    );
  });
});
