import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppliedView } from '../../lambdas/capabilities/guardrails/clamp.schema.ts';
import {
  type ApplyGuardrailsInput,
  applyGuardrails,
  projectGuardrailsSetAside,
  withinGuardrail,
} from '../../lambdas/capabilities/guardrails/clamp.ts';
import {
  type BeliefValue,
  Guardrail,
  type GuardrailSet,
} from '../../lambdas/capabilities/guardrails/guardrail.schema.ts';

// A small key pool and small value pools, so that personal values, bounds and enum values collide often.
const KEYS = ['alpha', 'beta', 'gamma', 'delta', 'constructor'] as const;
const key = fc.constantFrom(...KEYS);
const number = fc.oneof(fc.integer({ min: -12, max: 12 }), fc.double({ min: -12, max: 12, noNaN: true }));
const enumValue = fc.oneof(fc.integer({ min: -6, max: 6 }), fc.constantFrom('x', 'y', 'z'), fc.boolean());
const beliefValue: fc.Arbitrary<BeliefValue> = fc.oneof(number, enumValue, fc.string({ maxLength: 4 }));

const rangeGuardrail = fc
  .tuple(number, number)
  .map(([a, b]) => ({ min: Math.min(a, b), max: Math.max(a, b) }))
  .chain(({ min, max }) =>
    fc
      .option(fc.oneof(fc.constantFrom(min, max), fc.double({ min, max, noNaN: true })), { nil: undefined })
      .map((fallback) =>
        fallback === undefined ? { type: 'range', min, max } : { type: 'range', min, max, default: fallback },
      ),
  );
const enumGuardrail = fc
  .uniqueArray(enumValue, { minLength: 1, maxLength: 4, comparator: 'SameValueZero' })
  .chain((allowed) => fc.constantFrom(...allowed).map((fallback) => ({ type: 'enum', allowed, default: fallback })));
const lockedGuardrail = beliefValue.map((value) => ({ type: 'locked', value }));
const denyGuardrail = fc.constant({ type: 'deny' });

// Every generated guardrail goes through the schema, so the sets are valid by the same rules as stored ones.
const guardrail: fc.Arbitrary<Guardrail> = fc
  .oneof(rangeGuardrail, rangeGuardrail, enumGuardrail, enumGuardrail, lockedGuardrail, denyGuardrail)
  .map((candidate) => Guardrail.parse(candidate));
const guardrailSet: fc.Arbitrary<GuardrailSet> = fc.dictionary(key, guardrail, { maxKeys: KEYS.length });
const personal = fc.dictionary(key, beliefValue, { maxKeys: KEYS.length });

const input: fc.Arbitrary<ApplyGuardrailsInput> = fc.record({
  personal,
  organisation: guardrailSet,
  project: fc.option(guardrailSet, { nil: undefined }),
});

const own = <V>(record: Readonly<Record<string, V>> | undefined, name: string): V | undefined =>
  record !== undefined && Object.hasOwn(record, name) ? record[name] : undefined;

/** Every value a guardrail names; two guardrails admit a common value iff one of these is admitted by both. */
const namedValues = (guardrail: Guardrail): BeliefValue[] => {
  switch (guardrail.type) {
    case 'range':
      return [guardrail.min, guardrail.max];
    case 'enum':
      return guardrail.allowed;
    case 'locked':
      return [guardrail.value];
    case 'deny':
      return [];
  }
};

const admitSomeCommonValue = (a: Guardrail, b: Guardrail): boolean =>
  [...namedValues(a), ...namedValues(b)].some((value) => withinGuardrail(value, a) && withinGuardrail(value, b));

/** The organisation neither denies nor locks the key, and (if it bounds it) shares a value with the project. */
const projectApplies = (organisation: Guardrail | undefined, project: Guardrail): boolean =>
  organisation === undefined ||
  (organisation.type !== 'deny' &&
    organisation.type !== 'locked' &&
    (project.type === 'deny' || admitSomeCommonValue(organisation, project)));

const valuesOf = (view: AppliedView): Record<string, BeliefValue> =>
  Object.fromEntries(Object.entries(view.values).map(([name, { value }]) => [name, value]));

describe('Property: guardrail clamp', () => {
  it('never applies a value outside the organisation guardrail, nor outside an applicable project one', () => {
    fc.assert(
      fc.property(input, ({ personal, organisation, project }) => {
        const view = applyGuardrails({ personal, organisation, project });

        for (const [name, { value }] of Object.entries(view.values)) {
          const organisationGuardrail = own(organisation, name);
          if (organisationGuardrail !== undefined) expect(withinGuardrail(value, organisationGuardrail)).toBe(true);
          const projectGuardrail = own(project, name);
          if (projectGuardrail !== undefined && projectApplies(organisationGuardrail, projectGuardrail))
            expect(withinGuardrail(value, projectGuardrail)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('sets aside exactly the project guardrails that cannot apply', () => {
    fc.assert(
      fc.property(guardrailSet, guardrailSet, (organisation, project) => {
        const expected = Object.entries(project)
          .filter(([name, guardrail]) => !projectApplies(own(organisation, name), guardrail))
          .map(([name]) => name)
          .sort();
        expect(projectGuardrailsSetAside(organisation, project)).toEqual(expected);
      }),
    );
  });

  it('never shows a denied key, unless the organisation locks a key only the project denies', () => {
    fc.assert(
      fc.property(input, ({ personal, organisation, project }) => {
        const view = applyGuardrails({ personal, organisation, project });

        for (const name of KEYS) {
          const organisationType = own(organisation, name)?.type;
          const denied =
            organisationType === 'deny' || (own(project, name)?.type === 'deny' && organisationType !== 'locked');
          if (denied) expect(Object.hasOwn(view.values, name)).toBe(false);
        }
      }),
    );
  });

  it('always shows an organisation-locked key with the locked value', () => {
    fc.assert(
      fc.property(input, ({ personal, organisation, project }) => {
        const view = applyGuardrails({ personal, organisation, project });

        for (const [name, guardrail] of Object.entries(organisation))
          if (guardrail.type === 'locked')
            expect(own(view.values, name)).toEqual({ value: guardrail.value, source: 'guardrail' });
      }),
    );
  });

  it('records exactly one clamp per changed or dropped personal value, and none otherwise', () => {
    fc.assert(
      fc.property(input, ({ personal, organisation, project }) => {
        const view = applyGuardrails({ personal, organisation, project });

        const changed = Object.entries(personal)
          .filter(([name, requested]) => own(view.values, name)?.value !== requested)
          .map(([name]) => name)
          .sort();
        expect(view.clamps.map(({ key: name }) => name)).toEqual(changed);
        for (const clamp of view.clamps) {
          expect(clamp.requested).toBe(own(personal, clamp.key));
          expect(clamp.applied).toBe(own(view.values, clamp.key)?.value ?? null);
        }
      }),
    );
  });

  it('names sources truthfully and returns a well-formed view', () => {
    fc.assert(
      fc.property(input, ({ personal, organisation, project }) => {
        const view = applyGuardrails({ personal, organisation, project });

        expect(AppliedView.safeParse(view).success).toBe(true);
        for (const [name, { value, source }] of Object.entries(view.values)) {
          if (source === 'personal') expect(value).toBe(own(personal, name));
          if (source === 'default') expect(Object.hasOwn(personal, name)).toBe(false);
        }
      }),
    );
  });

  it('is idempotent: applying the guardrails to the applied values changes nothing', () => {
    fc.assert(
      fc.property(input, ({ personal, organisation, project }) => {
        const once = applyGuardrails({ personal, organisation, project });
        const twice = applyGuardrails({ personal: valuesOf(once), organisation, project });

        expect(valuesOf(twice)).toEqual(valuesOf(once));
        expect(twice.clamps).toEqual([]);
      }),
    );
  });

  it('does not depend on the order of the input keys', () => {
    fc.assert(
      fc.property(input, ({ personal, organisation, project }) => {
        const reversed = <V>(record: Record<string, V>) => Object.fromEntries(Object.entries(record).reverse());
        const view = applyGuardrails({ personal, organisation, project });
        const again = applyGuardrails({
          personal: reversed(personal),
          organisation: reversed(organisation),
          project: project && reversed(project),
        });

        expect(JSON.stringify(again)).toBe(JSON.stringify(view));
      }),
    );
  });
});
