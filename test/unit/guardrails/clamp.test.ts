import { describe, expect, it } from 'vitest';
import { AppliedView } from '../../../lambdas/capabilities/guardrails/clamp.schema.ts';
import {
  applyGuardrails,
  projectGuardrailsSetAside,
  withinGuardrail,
} from '../../../lambdas/capabilities/guardrails/clamp.ts';
import type { Guardrail, GuardrailSet } from '../../../lambdas/capabilities/guardrails/guardrail.schema.ts';

const range = (min: number, max: number, fallback?: number): Guardrail =>
  fallback === undefined ? { type: 'range', min, max } : { type: 'range', min, max, default: fallback };
const oneOf = (allowed: (string | number | boolean)[], fallback: string | number | boolean): Guardrail => ({
  type: 'enum',
  allowed,
  default: fallback,
});
const locked = (value: string | number | boolean): Guardrail => ({ type: 'locked', value });
const deny: Guardrail = { type: 'deny' };

const org = { scope: 'organisation', type: 'range' } as const;

describe('Function: withinGuardrail', () => {
  it.each([
    [5, range(0, 10), true],
    [0, range(0, 10), true],
    [10.5, range(0, 10), false],
    ['5', range(0, 10), false],
    ['a', oneOf(['a', 'b'], 'a'), true],
    ['c', oneOf(['a', 'b'], 'a'), false],
    [1, oneOf(['1'], '1'), false],
    [true, locked(true), true],
    [false, locked(true), false],
    ['anything', deny, false],
  ] as const)('%j within %j is %s', (value, guardrail, expected) => {
    expect(withinGuardrail(value, guardrail)).toBe(expected);
  });
});

describe('Function: applyGuardrails', () => {
  describe('without guardrails', () => {
    it('returns the personal values unchanged, with no clamps', () => {
      const view = applyGuardrails({ personal: { tone: 'plain', depth: 3 }, organisation: {} });

      expect(view).toEqual({
        values: { depth: { value: 3, source: 'personal' }, tone: { value: 'plain', source: 'personal' } },
        clamps: [],
      });
    });
  });

  describe('range', () => {
    it.each([
      [-4, 0, 'range.below_min'],
      [42, 10, 'range.above_max'],
    ] as const)('clamps %d to %d (%s)', (requested, applied, reason) => {
      const view = applyGuardrails({ personal: { depth: requested }, organisation: { depth: range(0, 10) } });

      expect(view.values).toEqual({ depth: { value: applied, source: 'guardrail' } });
      expect(view.clamps).toEqual([{ key: 'depth', requested, applied, guardrail: org, reason }]);
    });

    it('keeps a number within range, bounds included', () => {
      const view = applyGuardrails({
        personal: { low: 0, high: 10 },
        organisation: { low: range(0, 10), high: range(0, 10) },
      });

      expect(view.values).toEqual({ high: { value: 10, source: 'personal' }, low: { value: 0, source: 'personal' } });
      expect(view.clamps).toEqual([]);
    });

    it('replaces a non-number with the default', () => {
      const view = applyGuardrails({ personal: { depth: 'deep' }, organisation: { depth: range(0, 10, 3) } });

      expect(view.values).toEqual({ depth: { value: 3, source: 'guardrail' } });
      expect(view.clamps).toEqual([
        { key: 'depth', requested: 'deep', applied: 3, guardrail: org, reason: 'range.not_a_number' },
      ]);
    });

    it('drops a non-number when there is no default', () => {
      const view = applyGuardrails({ personal: { depth: true }, organisation: { depth: range(0, 10) } });

      expect(view.values).toEqual({});
      expect(view.clamps).toEqual([
        { key: 'depth', requested: true, applied: null, guardrail: org, reason: 'range.not_a_number' },
      ]);
    });

    it('treats a non-finite number that slipped past parsing as not a number', () => {
      const view = applyGuardrails({ personal: { depth: Number.NaN }, organisation: { depth: range(0, 10, 2) } });

      expect(view.values).toEqual({ depth: { value: 2, source: 'guardrail' } });
      expect(view.clamps[0]?.reason).toBe('range.not_a_number');
    });
  });

  describe('enum', () => {
    it('replaces a disallowed value with the default', () => {
      const view = applyGuardrails({
        personal: { tone: 'snarky' },
        organisation: { tone: oneOf(['plain', 'warm'], 'plain') },
      });

      expect(view.values).toEqual({ tone: { value: 'plain', source: 'guardrail' } });
      expect(view.clamps).toEqual([
        {
          key: 'tone',
          requested: 'snarky',
          applied: 'plain',
          guardrail: { scope: 'organisation', type: 'enum' },
          reason: 'enum.not_allowed',
        },
      ]);
    });

    it('keeps an allowed value, and tells "1" from 1', () => {
      const view = applyGuardrails({
        personal: { tone: 'warm', level: '1' },
        organisation: { tone: oneOf(['plain', 'warm'], 'plain'), level: oneOf([1, 2], 1) },
      });

      expect(view.values.tone).toEqual({ value: 'warm', source: 'personal' });
      expect(view.values.level).toEqual({ value: 1, source: 'guardrail' });
      expect(view.clamps.map(({ key }) => key)).toEqual(['level']);
    });
  });

  describe('locked', () => {
    const organisation = { 'citations.required': locked(true) };

    it('takes the guardrail value over a different personal one, with a clamp', () => {
      const view = applyGuardrails({ personal: { 'citations.required': false }, organisation });

      expect(view.values).toEqual({ 'citations.required': { value: true, source: 'guardrail' } });
      expect(view.clamps).toEqual([
        {
          key: 'citations.required',
          requested: false,
          applied: true,
          guardrail: { scope: 'organisation', type: 'locked' },
          reason: 'locked',
        },
      ]);
    });

    it('puts the key in the view when the principal has no value, without a clamp', () => {
      const view = applyGuardrails({ personal: {}, organisation });

      expect(view).toEqual({ values: { 'citations.required': { value: true, source: 'guardrail' } }, clamps: [] });
    });

    it('records no clamp when the personal value already equals it, and still names the guardrail as source', () => {
      const view = applyGuardrails({ personal: { 'citations.required': true }, organisation });

      expect(view).toEqual({ values: { 'citations.required': { value: true, source: 'guardrail' } }, clamps: [] });
    });
  });

  describe('deny', () => {
    it('drops the key, with a clamp', () => {
      const view = applyGuardrails({ personal: { salary: 100, tone: 'plain' }, organisation: { salary: deny } });

      expect(view.values).toEqual({ tone: { value: 'plain', source: 'personal' } });
      expect(view.clamps).toEqual([
        {
          key: 'salary',
          requested: 100,
          applied: null,
          guardrail: { scope: 'organisation', type: 'deny' },
          reason: 'denied',
        },
      ]);
    });

    it('records nothing when the principal has no value', () => {
      expect(applyGuardrails({ personal: {}, organisation: { salary: deny } })).toEqual({ values: {}, clamps: [] });
    });
  });

  describe('shared defaults', () => {
    it('fills keys the principal lacks from range and enum defaults, without clamps', () => {
      const view = applyGuardrails({
        personal: { tone: 'warm' },
        organisation: { depth: range(0, 10, 3), tone: oneOf(['plain', 'warm'], 'plain'), width: range(0, 1) },
      });

      expect(view).toEqual({
        values: { depth: { value: 3, source: 'default' }, tone: { value: 'warm', source: 'personal' } },
        clamps: [],
      });
    });

    it('prefers the project default to the organisation one', () => {
      const view = applyGuardrails({
        personal: {},
        organisation: { depth: range(0, 10, 3), tone: oneOf(['plain', 'warm'], 'plain') },
        project: { depth: range(0, 10, 7), tone: oneOf(['plain', 'warm'], 'warm') },
      });

      expect(view.values).toEqual({
        depth: { value: 7, source: 'default' },
        tone: { value: 'warm', source: 'default' },
      });
    });
  });

  describe('project narrowing', () => {
    const project = (type: Guardrail['type']) => ({ scope: 'project', type }) as const;
    const organisation = (type: Guardrail['type']) => ({ scope: 'organisation', type }) as const;

    it('intersects a wider project range with the organisation range', () => {
      const view = applyGuardrails({
        personal: { low: -5, mid: 8, high: 70 },
        organisation: { low: range(0, 50), mid: range(0, 50), high: range(0, 50) },
        project: { low: range(-10, 100), mid: range(-10, 100), high: range(-10, 100) },
      });

      expect(view.values).toEqual({
        high: { value: 50, source: 'guardrail' },
        low: { value: 0, source: 'guardrail' },
        mid: { value: 8, source: 'personal' },
      });
      expect(view.clamps.map(({ key, guardrail, reason }) => ({ key, guardrail, reason }))).toEqual([
        { key: 'high', guardrail: organisation('range'), reason: 'range.above_max' },
        { key: 'low', guardrail: organisation('range'), reason: 'range.below_min' },
      ]);
    });

    it('narrows further with a tighter project range, naming the first guardrail that refused', () => {
      const view = applyGuardrails({
        personal: { a: 200, b: 30, c: 5 },
        organisation: { a: range(0, 50), b: range(0, 50), c: range(0, 50) },
        project: { a: range(10, 20), b: range(10, 20), c: range(10, 20) },
      });

      expect(view.clamps).toEqual([
        { key: 'a', requested: 200, applied: 20, guardrail: organisation('range'), reason: 'range.above_max' },
        { key: 'b', requested: 30, applied: 20, guardrail: project('range'), reason: 'range.above_max' },
        { key: 'c', requested: 5, applied: 10, guardrail: project('range'), reason: 'range.below_min' },
      ]);
    });

    it('moves an organisation default into the project range when the project has none', () => {
      const view = applyGuardrails({
        personal: { depth: 'deep' },
        organisation: { depth: range(0, 100, 50), width: range(0, 100, 50) },
        project: { depth: range(0, 10), width: range(0, 10) },
      });

      expect(view.values).toEqual({
        depth: { value: 10, source: 'guardrail' },
        width: { value: 10, source: 'default' },
      });
      expect(view.clamps).toEqual([
        {
          key: 'depth',
          requested: 'deep',
          applied: 10,
          guardrail: organisation('range'),
          reason: 'range.not_a_number',
        },
      ]);
    });

    it('moves a project default outside the organisation range to the nearest shared bound', () => {
      const view = applyGuardrails({
        personal: {},
        organisation: { depth: range(0, 50) },
        project: { depth: range(20, 100, 80) },
      });

      expect(view.values).toEqual({ depth: { value: 50, source: 'default' } });
    });

    it('intersects enums, falling back to the organisation default when the project default is not allowed', () => {
      const view = applyGuardrails({
        personal: { tone: 'snarky', style: 'plain' },
        organisation: { tone: oneOf(['plain', 'warm', 'formal'], 'plain'), style: oneOf(['plain', 'warm'], 'plain') },
        project: { tone: oneOf(['warm', 'plain', 'snarky'], 'snarky'), style: oneOf(['warm'], 'warm') },
      });

      expect(view.values).toEqual({
        style: { value: 'warm', source: 'guardrail' },
        tone: { value: 'plain', source: 'guardrail' },
      });
      expect(view.clamps).toEqual([
        { key: 'style', requested: 'plain', applied: 'warm', guardrail: project('enum'), reason: 'enum.not_allowed' },
        {
          key: 'tone',
          requested: 'snarky',
          applied: 'plain',
          guardrail: organisation('enum'),
          reason: 'enum.not_allowed',
        },
      ]);
    });

    it('uses the first common value when neither default is allowed by the other scope', () => {
      const view = applyGuardrails({
        personal: { tone: 'x' },
        organisation: { tone: oneOf(['a', 'b', 'c'], 'a') },
        project: { tone: oneOf(['d', 'c', 'b'], 'd') },
      });

      expect(view.values.tone).toEqual({ value: 'c', source: 'guardrail' });
    });

    it('keeps only the enum values within an organisation range', () => {
      const view = applyGuardrails({
        personal: { depth: 8, width: 20, height: 5 },
        organisation: { depth: range(0, 10, 5), width: range(0, 10, 5), height: range(0, 10, 5) },
        project: { depth: oneOf([2, 8, 20], 20), width: oneOf([2, 8, 20], 20), height: oneOf([2, 8, 20], 20) },
      });

      expect(view.values).toEqual({
        depth: { value: 8, source: 'personal' },
        height: { value: 2, source: 'guardrail' },
        width: { value: 2, source: 'guardrail' },
      });
      expect(view.clamps.map(({ key, guardrail, reason }) => ({ key, guardrail, reason }))).toEqual([
        { key: 'height', guardrail: project('enum'), reason: 'enum.not_allowed' },
        { key: 'width', guardrail: organisation('range'), reason: 'range.above_max' },
      ]);
    });

    it('keeps only the organisation enum values within a project range', () => {
      const view = applyGuardrails({
        personal: { kept: 4, high: 9, unlisted: 2 },
        organisation: { kept: oneOf([1, 3, 4, 9], 9), high: oneOf([1, 3, 4, 9], 9), unlisted: oneOf([1, 3, 4, 9], 9) },
        project: { kept: range(2, 5), high: range(2, 5), unlisted: range(2, 5) },
      });

      // The organisation default 9 is outside the project range, so the first common value, 3, replaces.
      expect(view.values).toEqual({
        high: { value: 3, source: 'guardrail' },
        kept: { value: 4, source: 'personal' },
        unlisted: { value: 3, source: 'guardrail' },
      });
      expect(view.clamps).toEqual([
        { key: 'high', requested: 9, applied: 3, guardrail: project('range'), reason: 'range.above_max' },
        { key: 'unlisted', requested: 2, applied: 3, guardrail: organisation('enum'), reason: 'enum.not_allowed' },
      ]);
    });

    it('lets a project deny a key the organisation only bounds, never filling it from a default', () => {
      const view = applyGuardrails({
        personal: { depth: 5 },
        organisation: { depth: range(0, 10, 3), width: range(0, 10, 3) },
        project: { depth: deny, width: deny },
      });

      expect(view).toEqual({
        values: {},
        clamps: [{ key: 'depth', requested: 5, applied: null, guardrail: project('deny'), reason: 'denied' }],
      });
    });

    it('lets a project lock a value the organisation admits', () => {
      const view = applyGuardrails({
        personal: { depth: 9 },
        organisation: { depth: range(0, 10) },
        project: { depth: locked(4) },
      });

      expect(view.values).toEqual({ depth: { value: 4, source: 'guardrail' } });
      expect(view.clamps).toEqual([
        { key: 'depth', requested: 9, applied: 4, guardrail: project('locked'), reason: 'locked' },
      ]);
    });

    it.each([
      ['a range', range(0, 100, 50)],
      ['a lock', locked(1)],
      ['an enum', oneOf([1, 2], 1)],
    ])('does not let %s override an organisation deny', (_, projectGuardrail) => {
      const view = applyGuardrails({
        personal: {},
        organisation: { depth: deny },
        project: { depth: projectGuardrail },
      });

      expect(view).toEqual({ values: {}, clamps: [] });
    });

    it.each([
      ['a deny', deny],
      ['another lock', locked('casual')],
      ['an enum', oneOf(['casual'], 'casual')],
    ])('does not let %s override an organisation lock', (_, projectGuardrail) => {
      const view = applyGuardrails({
        personal: { tone: 'casual' },
        organisation: { tone: locked('formal') },
        project: { tone: projectGuardrail },
      });

      expect(view.values).toEqual({ tone: { value: 'formal', source: 'guardrail' } });
      expect(view.clamps).toEqual([
        { key: 'tone', requested: 'casual', applied: 'formal', guardrail: organisation('locked'), reason: 'locked' },
      ]);
    });

    it.each([
      ['a disjoint range', range(60, 100, 80)],
      ['a lock outside the range', locked(70)],
      ['an enum without a value in range', oneOf([70, 'x'], 70)],
    ])('sets aside %s: the organisation guardrail alone applies', (_, projectGuardrail) => {
      const view = applyGuardrails({
        personal: { depth: 30 },
        organisation: { depth: range(0, 50, 10) },
        project: { depth: projectGuardrail },
      });

      expect(view).toEqual({ values: { depth: { value: 30, source: 'personal' } }, clamps: [] });
    });

    it('sets aside enums with no common value', () => {
      const view = applyGuardrails({
        personal: { tone: 'loud' },
        organisation: { tone: oneOf(['plain', 'warm'], 'warm') },
        project: { tone: oneOf(['loud'], 'loud') },
      });

      expect(view.values.tone).toEqual({ value: 'warm', source: 'guardrail' });
      expect(view.clamps[0]?.guardrail).toEqual(organisation('enum'));
    });

    it('applies a project guardrail alone where the organisation has none', () => {
      const view = applyGuardrails({ personal: { depth: 12 }, organisation: {}, project: { depth: range(0, 10) } });

      expect(view.clamps).toEqual([
        { key: 'depth', requested: 12, applied: 10, guardrail: project('range'), reason: 'range.above_max' },
      ]);
    });
  });

  describe('determinism', () => {
    it('orders values and clamps by key, whatever the input order', () => {
      const organisation: GuardrailSet = { b: deny, a: range(0, 1), c: locked(1) };
      const first = applyGuardrails({ personal: { c: 2, b: 1, a: 5, d: 'x' }, organisation });
      const second = applyGuardrails({
        personal: { d: 'x', a: 5, b: 1, c: 2 },
        organisation: { c: locked(1), a: range(0, 1), b: deny },
      });

      expect(first.clamps.map(({ key }) => key)).toEqual(['a', 'b', 'c']);
      expect(Object.keys(first.values)).toEqual(['a', 'c', 'd']);
      expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    });

    it('returns a view that parses as an AppliedView', () => {
      const view = applyGuardrails({
        personal: { a: 5, b: 1, c: 'x' },
        organisation: { a: range(0, 1), b: deny, c: oneOf(['y'], 'y'), d: range(0, 1, 1) },
      });

      expect(AppliedView.parse(view)).toEqual(view);
    });

    it('does not mistake inherited properties for guardrails or values', () => {
      const view = applyGuardrails({ personal: { constructor: 'x', tostring: 1 }, organisation: { tostring: deny } });

      expect(view.values).toEqual({ constructor: { value: 'x', source: 'personal' } });
      expect(view.clamps.map(({ key }) => key)).toEqual(['tostring']);
    });
  });
});

describe('Function: projectGuardrailsSetAside', () => {
  it('lists, in key order, the project guardrails that are overridden or admit nothing the organisation does', () => {
    const setAside = projectGuardrailsSetAside(
      {
        denied: deny,
        fixed: locked(1),
        ranged: range(0, 10),
        listed: oneOf(['a', 'b'], 'a'),
        narrowed: range(0, 10),
      },
      {
        ranged: range(20, 30),
        narrowed: range(5, 30),
        listed: oneOf(['c'], 'c'),
        fixed: range(0, 5),
        denied: deny,
        projectOnly: deny,
      },
    );

    expect(setAside).toEqual(['denied', 'fixed', 'listed', 'ranged']);
  });
});
