import * as z from 'zod';

/*
 * What a key and a value of learned memory look like, and so what a guardrail can bound: guardrails own the
 * vocabulary, beliefs (learning) use it. Dots let keys read as paths (`style.tone`) without making them a path:
 * a key is one opaque token, compared exactly. The shape also keeps out `__proto__` and anything that needs
 * escaping in a storage key or a URL.
 */

export const RULE_KEY_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/;
export const RULE_STRING_MAX_LENGTH = 256;

/** Twelve digits in a row: the shortest run that could be a card, account or national number. */
const LONG_DIGIT_RUN = /\d{12}/;

/**
 * A rule key: 1-64 characters, a lowercase letter first, then lowercase letters, digits, `_`, `.` or `-`. A key
 * names a rule, never a person's number, so it holds no run of twelve digits or more: the free-text screen
 * lets digits glued to letters pass (hashes, build ids), which is right for text and wrong for a name.
 */
export const RULE_KEY_MESSAGE =
  'a key is 1-64 characters: a lowercase letter, then lowercase letters, digits, _, . or -';

export const RuleKey = z
  .string()
  .regex(RULE_KEY_PATTERN, RULE_KEY_MESSAGE)
  .refine((key) => !LONG_DIGIT_RUN.test(key), 'a key holds no run of 12 or more digits');
export type RuleKey = z.infer<typeof RuleKey>;

/** A rule's value: short text, a finite number or a flag. */
export const RuleValue = z.union(
  [
    z.string().max(RULE_STRING_MAX_LENGTH, `a text value is at most ${RULE_STRING_MAX_LENGTH} characters`),
    z.number({ error: 'a number value must be finite' }),
    z.boolean(),
  ],
  { error: `a value is a string (at most ${RULE_STRING_MAX_LENGTH} characters), a finite number or a boolean` },
);
export type RuleValue = z.infer<typeof RuleValue>;
