import { describe, expect, it } from 'vitest';
import {
  containsEmailAddress,
  containsIban,
  containsNationalId,
  containsPaymentCardNumber,
  containsPhoneNumber,
  isKnownCardNumberShape,
} from '../../../lambdas/kernel/protection/personal-identifier-detectors.ts';
import { ScreenedText } from '../../../lambdas/kernel/protection/screened-text.ts';

/*
 * The edges of each personal-identifier detector, one detector at a time (the screen runs them all, so a
 * case another detector also catches says nothing about this one). Every number below is valid for its
 * checksum unless the case says otherwise; they were computed once and written out, so that a fault in the
 * checksums cannot also change the samples.
 */

type Detector = (screened: ScreenedText) => boolean;
const detects = (detector: Detector, text: string): boolean => detector(new ScreenedText(text));

const expectFound = (detector: Detector, cases: readonly string[]) => {
  it.each(cases)('finds one in %j', (text) => {
    expect(detects(detector, text)).toBe(true);
  });
};
const expectNone = (detector: Detector, cases: readonly string[]) => {
  it.each(cases)('finds none in %j', (text) => {
    expect(detects(detector, text)).toBe(false);
  });
};

describe('Function: containsEmailAddress', () => {
  expectFound(containsEmailAddress, [
    // Every character a local part may end on, right before the `@`
    'a.@example.com',
    'a_@example.com',
    'a%@example.com',
    'a+@example.com',
    'a-@example.com',
    'Z9@example.com',
    // Domain labels: one character, hyphens inside, a capital top-level domain
    'x@b.io',
    'x@ex-ample.com',
    'x@EXAMPLE.COM',
    // Trailing dots and hyphens are the sentence's, not the domain's
    'write to me@example.com.',
    'me@example.com- or later',
    'mail bob@example.com: thanks',
    'ask git@example.com',
    `${'word '.repeat(60)}me@example.com`,
    // Not an asset name or a density
    'x@host.apng',
    'x@host.pngx',
    'icon@a2x.example',
    'icon@2xa.example',
  ]);

  expectNone(containsEmailAddress, [
    '@acme.io is our handle',
    '..@example.com',
    `x${'.'.repeat(64)}@example.com`,
    '@alice wrote docs.example.com',
    // Labels that start or end with a hyphen, and top-level domains that are not letters
    'x@-example.com',
    'x@example-.com',
    'x@-bad.example.com',
    'x@example.0com',
    'x@example.com0',
    // Asset names and densities
    'logo@photo.jpg',
    'logo@config.yml',
    'logo@page.htm',
    'logo@bundle.js',
    'logo@index.ts',
    'icon@2x.example',
    'icon@12x.example',
    'git@github.com:acme/repo.git',
    // A domain longer than 254 characters is read up to its limit: here that cuts the top-level domain short
    `x@${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(8)}.io`,
  ]);
});

describe('Function: containsPhoneNumber', () => {
  describe('International numbers after a plus', () => {
    expectFound(containsPhoneNumber, [
      '+44 20 7946 0958',
      '+44-20-7946-0958',
      '+44.20.7946.0958',
      '+44 (0)20 7946 0958',
      '+44 12 3456',
      '+1234 567 8901',
      '+12 345 678 901 234',
      '+123456789012345',
      '+1234567890',
      '(+44 20 7946 0958)',
      // A character after the number that is neither a letter nor a separator ends it cleanly
      '+44 2079 46095[',
      '+44 2079 46095{',
      '+123 456 7890',
      '+44 12345678',
    ]);
    expectNone(containsPhoneNumber, [
      '+44 12 345',
      '+2345 678 9012',
      '+12345 678 9012',
      '+1234567890123456',
      '+123456789',
      '+44 2079 46095x',
      '+44 2079 46095_',
      '+44 ( 20 7946 0958',
      'a+44 20 7946 0958',
      '_+44 20 7946 0958',
      '++44 20 7946 0958',
      '+ 44 20 7946 0958',
      '+44 2079 46095Z',
      '+44 2079 46095z',
      '+44#20#7946#0958',
    ]);
  });

  describe('North American and trunk-prefixed groupings', () => {
    expectFound(containsPhoneNumber, [
      '415-555-2671',
      '215.555.2671',
      '1 415 555 2671',
      '1-215-555-2671',
      '020 7946 0958',
      '07700 900123',
      '0044 20 7946 0958',
      '00441 207 946 0958',
      '004 420 7946 0958',
      '0044 2079 460',
      '0044 2079 4609 5812 3',
      '0044 20 79 46 09 58',
      '01 23 45 67 89',
      '030-12345678',
    ]);
    expectNone(containsPhoneNumber, [
      '115-555-2671',
      '415 555 2671',
      '1 115 555 2671',
      '2 415 555 2671',
      'ORD-415-555-2671',
      '415-555-2671.txt',
      '020.7946.0958',
      '020 7946 0958 11 22 33 44',
      '0 7946 09581',
      '020 7946 09 5',
      '020 794 6095 8',
      '020 7946 09',
      '004412 0794 6095 8',
      '0044 2079 46',
      '0044 2079 4609 5812 34',
      '020 7946 09581 2',
      '00 44 20 7946 0958',
      '004420 7946 0958 1',
      '0044 20',
      '0044 2079 4609 5812 3456',
      '0123456 78901',
      '020 123456789',
      '415-555',
      '00441 2 3 4 5 6 7',
      '012345 6789',
      '01 234567890',
      '020 7946 09581',
    ]);
  });

  describe('Parenthesized area codes', () => {
    expectFound(containsPhoneNumber, ['(415)555-2671', '(415) 5552671', '1(415) 555-2671', '+1 (415) 555-2671']);
    expectNone(containsPhoneNumber, [
      '(415) 555-2671-9',
      '(415) 555-2671.5',
      '(115) 555-2671',
      'x(415) 555-2671',
      '1x(415) 555-2671',
    ]);
  });

  describe('Numbers after a label', () => {
    expectFound(containsPhoneNumber, [
      'phone: 5552671',
      'cellphone 555 2671',
      'cell 5552671',
      'call  me at 5552671',
      'call\tme 5552671',
      'text\nme 5552671',
      'reach  me on 5552671',
      'ring  me 5552671',
      'phone  number 5552671',
      'phone no 5552671',
      'phone no. 5552671',
      'phone # 5552671',
      'phone is 123456789012345',
      'mobile = 555 2671',
      'text  me 5552671',
      'phone is  5552671',
      'call me at  5552671',
      'reach me on  5552671',
      'phone:5552671',
      'phone: 5552671 today',
      'phone 12 2026-11-30',
      'phone 2026-11-30 55',
    ]);
    expectNone(containsPhoneNumber, [
      'phone: 555267',
      'phone: 1234567890123456',
      'phone 2026-11-30',
      'phone 30.11.2026',
      'tel 1-1-2026',
      'call me at 10:30',
      'callme 5552671',
      'phone: 555-267',
    ]);
  });
});

describe('Function: containsNationalId', () => {
  describe('US Social Security numbers', () => {
    expectFound(containsNationalId, [
      '219-09-9998',
      'SSN 219 09 9998',
      'ssn: 219099998',
      'social  security 219-09-9998',
      'social security number 219 09 9998',
      'social security no. 219099998',
      'social security # 219-09-9998',
      'social  security 219 09 9998',
      'social security 219 09 9998',
      'social security   number:     219 09 9998',
      'social security no:         219 09 9998',
    ]);
    expectNone(containsNationalId, [
      '000-12-3456',
      '666-12-3456',
      '900-12-3456',
      '219-00-9998',
      '219-09-0000',
      '219 09 9998',
      '219.09.9998',
      'x-219-09-9998',
      '219-09-9998-1',
      '2190-09-9998',
      'SSN 666 12 3456',
      'SSN 219 09 0000',
      'SSN 219 00 9998',
      'SSN 219 09-9998',
      'SSN 219 09 99981',
      'SSN 219 09 9998x',
    ]);
  });

  describe('Aadhaar numbers', () => {
    expectFound(containsNationalId, [
      'aadhar 2345 6789 0124',
      'uidai 2345-6789-0124',
      'uid  number 234567890124',
      'aadhaar card:  2345 6789 0124',
      'aadhaar no.   #   2345 6789 0124',
    ]);
    expectNone(containsNationalId, [
      'aadhaar 2345 6789 0123',
      'aadhaar 1345 6789 0124',
      'aadhaar 2345 6789 01245',
      'aadhaar 2345 6789 0124x',
    ]);
  });

  describe('UK National Insurance numbers and Spanish DNI / NIE', () => {
    expectFound(containsNationalId, [
      'AB 12 34 56 C, thanks',
      'ab123456c',
      '12345678Z.',
      'X-1234567-L',
      'Y1234567X',
      'Z1234567R',
    ]);
    expectNone(containsNationalId, [
      'BG 12 34 56 C',
      'GB123456A',
      'KN123456A',
      'NK123456A',
      'NT123456A',
      'TN123456A',
      'ZZ123456A',
      'AB 12 34 56 Cx',
      '12345678A',
      '12345678Zx',
      'X1234567X',
    ]);
  });
});

describe('Function: isKnownCardNumberShape', () => {
  it.each([
    '4222222222222',
    '4111111111111111',
    '4111111111111111110',
    '5100000000000008',
    '5500000000000004',
    '2221000000000009',
    '2720000000000005',
    '340000000000009',
    '370000000000002',
    '6011000000000004',
    '6011000000000000001',
    '6440000000000005',
    '6490000000000004',
    '6500000000000002',
    '6200000000000005',
    '6200000000000000000',
    '3528000000000007',
    '3589000000000003',
    '30000000000004',
    '30500000000003',
    '36000000000008',
    '38000000000006',
    '39000000000005',
    '2200000000000004',
    '2204000000000000',
    '5018000000007',
    '6763000000000000007',
  ])('knows %s', (digits) => {
    expect(isKnownCardNumberShape(digits)).toBe(true);
  });

  it.each([
    '411111111111116',
    '41111111111111111',
    '510000000000003',
    '5600000000000008',
    '2220000000000000',
    '2721000000000000',
    '3700000000000007',
    '601100000000001',
    '620000000000000',
    '352800000000007',
    '3600000000004',
    '30600000000000',
    '220000000000004',
    '2205000000000000',
    '501800000009',
    '7000000000000005',
    '6300000000000004',
  ])('does not know %s', (digits) => {
    expect(isKnownCardNumberShape(digits)).toBe(false);
  });
});

describe('Function: containsPaymentCardNumber', () => {
  expectFound(containsPaymentCardNumber, [
    '4111 1111 1111 1111',
    '4111-1111-1111-1111',
    '3700 000000 00002',
    '3600 000000 0008',
    'ref 12 3700 000000 00002',
    '12 4111111111111111',
    '4222 2222 2222 2',
  ]);
  expectNone(containsPaymentCardNumber, [
    '41 11 11 11 11 11 11 11',
    '4111 1111 1111 111 1',
    'ORD4111111111111111',
    '4111111111111111abc',
    'price 0.4111111111111111',
    '4111 1111.1111 1111',
    '4111 1111 1111 1111.5',
    '4222 222222 222',
    '3700 00000 000002',
    '370 0000000 00002',
    '4111 11 1111111111',
    '7000000000000005',
  ]);
});

describe('Function: containsIban', () => {
  expectFound(containsIban, [
    'GB82WEST12345698765432',
    'GB82 WEST 1234 5698 7654 32',
    'NO9386011117947, thanks',
    'BE68 5390 0754 7034',
    'to DE89 3704 0044 0532 0130 00.',
  ]);
  expectNone(containsIban, [
    'GB82WEST1234569876543',
    'GB82WEST123456987654321',
    'GB82WEST12345698765432x',
    'GB82 WEST 1234 5698 7654 3',
    'GB82  WEST 1234 5698 7654 32',
    'GB82 WE ST12 3456 9876 5432',
    'GB82 WEST 1234 5698 7654 32x',
    'XX46370400440532013000',
    'DE5137040044053201300',
    'GB83WEST12345698765432',
    'xGB82WEST12345698765432',
    'GB8 2WEST12345698765432',
  ]);
});
