import { describe, expect, it } from 'vitest';
import { screenRule } from '../../../lambdas/kernel/protection/rule-screen.ts';

describe('Function: screenRule', () => {
  it('refuses a Luhn-valid card-length digit run in a value even when glued to letters', () => {
    expect(screenRule({ key: 'card', value: 'card4111111111111111' })).toEqual({
      verdict: 'refused',
      reasons: ['pii.payment_card'],
    });
  });

  it('lets through glued runs that fail Luhn or are not card length, and ordinary values', () => {
    expect(screenRule({ key: 'build', value: 'build4111111111111112' }).verdict).toBe('clean');
    expect(screenRule({ key: 'build', value: 'v123456789012' }).verdict).toBe('clean');
    expect(screenRule({ key: 'volume', value: 4111111111111111 }).verdict).toBe('refused');
    expect(screenRule({ key: 'tone', value: 'casual' }).verdict).toBe('clean');
  });

  it('keeps the free-text screen: an email in the value is refused with its reason alone', () => {
    expect(screenRule({ key: 'contact', value: 'mail me at jane.doe@example.com' })).toEqual({
      verdict: 'refused',
      reasons: ['pii.email'],
    });
  });
});
