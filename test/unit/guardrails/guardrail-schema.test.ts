import { describe, expect, it } from 'vitest';
import {
  BeliefValue,
  GUARDRAIL_SET_MAX_KEYS,
  Guardrail,
  GuardrailKey,
  GuardrailSet,
} from '../../../lambdas/capabilities/guardrails/guardrail.schema.ts';

const issuesOf = (input: unknown) => {
  const result = Guardrail.safeParse(input);
  expect(result.success).toBe(false);
  return (result.error?.issues ?? []).map(({ path, message }) => ({ path: path.join('.'), message }));
};

describe('Schema: GuardrailKey', () => {
  it.each(['tone', 'style.tone', 'review.max-comments', 'a', 'x_1', `k${'a'.repeat(63)}`])('accepts %s', (key) => {
    expect(GuardrailKey.safeParse(key).success).toBe(true);
  });

  it.each(['', 'Tone', '1tone', '_x', '__proto__', 'a b', 'a/b', `k${'a'.repeat(64)}`])('refuses %j', (key) => {
    expect(GuardrailKey.safeParse(key).success).toBe(false);
  });
});

describe('Schema: BeliefValue', () => {
  it.each(['', 'concise', 'x'.repeat(256), 0, -1.5, 1e300, true, false])('accepts %j', (value) => {
    expect(BeliefValue.safeParse(value).success).toBe(true);
  });

  it.each([
    ['a long string', 'x'.repeat(257)],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['null', null],
    ['an object', { a: 1 }],
    ['an array', [1]],
  ])('refuses %s', (_, value) => {
    expect(BeliefValue.safeParse(value).success).toBe(false);
  });
});

describe('Schema: Guardrail', () => {
  it.each([
    { type: 'range', min: 0, max: 1 },
    { type: 'range', min: 2, max: 2, default: 2 },
    { type: 'enum', allowed: ['terse', 'verbose'], default: 'terse' },
    { type: 'enum', allowed: [1, 'one', true], default: true },
    { type: 'locked', value: false },
    { type: 'deny' },
  ])('accepts %j', (guardrail) => {
    expect(Guardrail.parse(guardrail)).toEqual(guardrail);
  });

  it('refuses a range whose min exceeds its max', () => {
    expect(issuesOf({ type: 'range', min: 2, max: 1 })).toEqual([{ path: 'max', message: 'min must not exceed max' }]);
  });

  it('refuses a range default outside [min, max]', () => {
    expect(issuesOf({ type: 'range', min: 0, max: 1, default: 2 })).toEqual([
      { path: 'default', message: 'default must lie within [min, max]' },
    ]);
  });

  it('refuses non-finite bounds, naming the field', () => {
    expect(issuesOf({ type: 'range', min: Number.NEGATIVE_INFINITY, max: 1 })).toEqual([
      { path: 'min', message: 'min must be a finite number' },
    ]);
  });

  it('refuses an enum without values, with duplicates, or whose default is not allowed', () => {
    expect(issuesOf({ type: 'enum', allowed: [], default: 'a' })).toContainEqual({
      path: 'allowed',
      message: 'allowed must list at least one value',
    });
    expect(issuesOf({ type: 'enum', allowed: ['a', 'a'], default: 'a' })).toEqual([
      { path: 'allowed', message: 'allowed values must be unique' },
    ]);
    expect(issuesOf({ type: 'enum', allowed: ['a', 'b'], default: 'c' })).toEqual([
      { path: 'default', message: 'default must be one of the allowed values' },
    ]);
  });

  it('refuses an enum without a default', () => {
    expect(issuesOf({ type: 'enum', allowed: ['a'] })).toEqual([expect.objectContaining({ path: 'default' })]);
  });

  it('refuses a default on deny, saying why', () => {
    expect(issuesOf({ type: 'deny', default: 'x' })).toEqual([
      { path: '', message: 'a deny guardrail drops the key, so it takes no default' },
    ]);
  });

  it('refuses a default on locked, saying why', () => {
    expect(issuesOf({ type: 'locked', value: 1, default: 2 })).toEqual([
      { path: '', message: 'a locked guardrail always applies its value, so it takes value, not default' },
    ]);
  });

  it('refuses unknown fields, naming them', () => {
    expect(issuesOf({ type: 'range', min: 0, max: 1, step: 1 })).toEqual([
      { path: '', message: 'unknown field(s): step' },
    ]);
  });

  it('refuses an unknown type, listing the known ones', () => {
    expect(issuesOf({ type: 'regex', pattern: '.*' })).toEqual([
      { path: 'type', message: 'type must be one of range, enum, locked, deny' },
    ]);
  });
});

describe('Schema: GuardrailSet', () => {
  it('accepts guardrails by key', () => {
    const set = { 'style.tone': { type: 'enum', allowed: ['plain'], default: 'plain' }, secrets: { type: 'deny' } };
    expect(GuardrailSet.parse(set)).toEqual(set);
  });

  it('refuses a key of the wrong shape, naming it', () => {
    const result = GuardrailSet.safeParse({ Tone: { type: 'deny' } });
    expect(result.error?.issues).toEqual([expect.objectContaining({ path: ['Tone'] })]);
  });

  it(`refuses more than ${GUARDRAIL_SET_MAX_KEYS} guardrails`, () => {
    const set = Object.fromEntries(
      Array.from({ length: GUARDRAIL_SET_MAX_KEYS + 1 }, (_, index) => [`k${index}`, { type: 'deny' }]),
    );
    expect(GuardrailSet.safeParse(set).success).toBe(false);
  });
});
