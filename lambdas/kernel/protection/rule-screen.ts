import { passesLuhn } from './checksums.ts';
import type { SensitiveContentReason } from './protection.schema.ts';
import { type ScreenResult, screenSensitiveContent } from './sensitive-content-screen.ts';

/** A run of 13-19 digits with no digit on either side, wherever it sits (letters around it included). */
const DIGIT_RUN = /(?<!\d)\d{13,19}(?!\d)/g;

/**
 * The screen for one rule about to enter long-term memory: the free-text screen over its key and value, and
 * one stricter check. Free text lets a digit run glued to letters pass (`build4111111111111111` reads like an
 * id); a rule's value is a short, deliberate statement, so a glued run of card length that passes Luhn is
 * refused there too. Reason codes only, never the value.
 */
export const screenRule = (rule: { readonly key: string; readonly value: string | number | boolean }): ScreenResult => {
  const screened = screenSensitiveContent({ key: rule.key, value: rule.value });
  const glued = typeof rule.value === 'string' && [...rule.value.matchAll(DIGIT_RUN)].some(([run]) => passesLuhn(run));
  if (!glued) return screened;
  const reasons = new Set<SensitiveContentReason>(screened.verdict === 'refused' ? screened.reasons : []);
  reasons.add('pii.payment_card');
  return Object.freeze({ verdict: 'refused', reasons: Object.freeze([...reasons].sort()) });
};
