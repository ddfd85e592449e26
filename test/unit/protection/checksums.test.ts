import { describe, expect, it } from 'vitest';
import {
  ibanCheckDigits,
  luhnCheckDigit,
  mod97,
  passesIbanChecksum,
  passesLuhn,
  passesVerhoeff,
  spanishIdControlLetter,
} from '../../../lambdas/kernel/protection/checksums.ts';

describe('Function: passesLuhn', () => {
  it.each(['79927398713', '4111111111111111', '5555555555554444', '378282246310005', '0'])('accepts %s', (digits) => {
    expect(passesLuhn(digits)).toBe(true);
  });

  it.each(['79927398710', '4111111111111112', '', '4111 1111', 'abc'])('rejects %s', (digits) => {
    expect(passesLuhn(digits)).toBe(false);
  });

  it('completes a payload with its check digit', () => {
    expect(luhnCheckDigit('7992739871')).toBe('3');
    expect(luhnCheckDigit('411111111111111')).toBe('1');
  });
});

describe('Function: passesIbanChecksum', () => {
  it.each(['GB82WEST12345698765432', 'DE89370400440532013000', 'NL91ABNA0417164300', 'FR1420041010050500013M02606'])(
    'accepts %s',
    (iban) => {
      expect(passesIbanChecksum(iban)).toBe(true);
    },
  );

  it.each(['GB83WEST12345698765432', 'GB82WEST12345698765433', 'GB00WEST12345698765432', 'GB82west12345698765432'])(
    'rejects %s',
    (iban) => {
      expect(passesIbanChecksum(iban)).toBe(false);
    },
  );

  it('computes the check digits an IBAN is built with', () => {
    expect(ibanCheckDigits('GB', 'WEST12345698765432')).toBe('82');
    expect(ibanCheckDigits('DE', '370400440532013000')).toBe('89');
    expect(mod97('x')).toBeNaN();
  });
});

describe('Function: passesVerhoeff', () => {
  it('accepts the textbook example and rejects its single-digit and transposition errors', () => {
    expect(passesVerhoeff('2363')).toBe(true);
    expect(passesVerhoeff('2364')).toBe(false);
    expect(passesVerhoeff('3263')).toBe(false);
    expect(passesVerhoeff('')).toBe(false);
  });
});

describe('Function: spanishIdControlLetter', () => {
  it('gives the DNI and NIE control letters', () => {
    expect(spanishIdControlLetter('12345678')).toBe('Z');
    expect(spanishIdControlLetter('X1234567')).toBe('L');
  });
});
