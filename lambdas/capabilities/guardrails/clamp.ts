/**
 * The clamp: mature personal values bounded by shared guardrails, organisation first, then project
 * (DESIGN §5 "Applied view"). Pure and deterministic; the service calls it on every read of the applied
 * view, so that no agent can act on a value outside a guardrail.
 *
 * One guardrail on a key
 * - `range`: a finite number outside [min, max] moves to the nearest bound (`range.below_min`,
 *   `range.above_max`); anything else is replaced by the default, or dropped when there is none
 *   (`range.not_a_number`).
 * - `enum`: a value not in `allowed` is replaced by the default (`enum.not_allowed`).
 * - `locked`: the key always carries the guardrail's value, even when the principal has none. A clamp record
 *   (`locked`) exists only when the principal had a different value: no personal value, or the same one,
 *   means nothing was refused.
 * - `deny`: the key is dropped (`denied`) and never filled from any default, at either scope.
 * - Defaults: a key the principal has no value for takes the guardrail default, with source `default` and
 *   no clamp record. A `locked` key has source `guardrail` whether or not the principal had a value.
 *
 * Organisation and project on the same key (the project can only narrow)
 * 1. An organisation `deny` or `locked` decides alone; the project guardrail is not applied.
 * 2. Otherwise a project `deny` drops the key (dropping never yields a value outside the organisation).
 * 3. A project `locked` applies if the organisation guardrail admits its value.
 * 4. A project `range` or `enum` is intersected with the organisation `range` or `enum`; a value must
 *    satisfy both.
 *    - range with range: the intersection of the intervals; numbers move to its nearest bound. The default is
 *      the project's, else the organisation's, moved into the intersection.
 *    - any pair with an enum: the admitted values are the enum's values (the project's when it has one, in
 *      its order) that the other guardrail admits. A refused value is replaced by the default: the project's
 *      when the organisation admits it, else the organisation's when the project admits it, else the first
 *      admitted value.
 * 5. A project guardrail that admits no value the organisation admits (disjoint ranges, a locked value the
 *    organisation refuses, enums without a common value) is set aside: the organisation guardrail alone
 *    applies. `projectGuardrailsSetAside` lists such keys, so a service can refuse or report them.
 * Hence an applied value always satisfies the organisation guardrail of its key, and the project guardrail
 * too unless that was set aside.
 *
 * Clamp records: exactly one per key whose personal value was changed or dropped, none otherwise, in key
 * order. It names the guardrail that acted: the `deny` or `locked` one, or else the first guardrail
 * (organisation before project) that refused the requested value, with that guardrail's reason; `applied`
 * is the final value after both scopes. Values are compared with `===` (so `0` and `-0` are the same value).
 */
import type { AppliedValue, AppliedView, ClampReason, ClampRecord } from './clamp.schema.ts';
import type {
  BeliefValue,
  EnumGuardrail,
  Guardrail,
  GuardrailScope,
  GuardrailSet,
  RangeGuardrail,
} from './guardrail.schema.ts';

export interface ApplyGuardrailsInput {
  /** The principal's mature values by key: profile, then the agent's preferences, merged by the caller. */
  readonly personal: Readonly<Record<string, BeliefValue>>;
  /** Parsed guardrail sets (`GuardrailSet`): the clamp trusts their invariants (min ≤ max, default allowed). */
  readonly organisation: GuardrailSet;
  readonly project?: GuardrailSet | undefined;
}

interface Scoped<G extends Guardrail = Guardrail> {
  readonly scope: GuardrailScope;
  readonly guardrail: G;
}

type ValueGuardrail = RangeGuardrail | EnumGuardrail;

interface Interval {
  readonly min: number;
  readonly max: number;
}

/** What decides one key once both scopes are combined. */
type KeyPolicy =
  | { readonly type: 'deny'; readonly by: Scoped }
  | { readonly type: 'locked'; readonly value: BeliefValue; readonly by: Scoped }
  | {
      readonly type: 'bounded';
      /** Every guardrail a value must satisfy, organisation first. */
      readonly checks: readonly Scoped<ValueGuardrail>[];
      /** Set when the admitted values are exactly the finite numbers of one interval. */
      readonly interval?: Interval | undefined;
      /** Replaces a refused value that cannot move to a bound, and fills an absent key. Always admitted. */
      readonly fallback?: BeliefValue | undefined;
    };

const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** Whether a guardrail admits a value. A `deny` admits none: a denied key has no value at all. */
export const withinGuardrail = (value: BeliefValue, guardrail: Guardrail): boolean => {
  switch (guardrail.type) {
    case 'range':
      return isFiniteNumber(value) && value >= guardrail.min && value <= guardrail.max;
    case 'enum':
      return guardrail.allowed.includes(value);
    case 'locked':
      return value === guardrail.value;
    case 'deny':
      return false;
  }
};

const clampTo = (value: number, { min, max }: Interval): number => Math.min(max, Math.max(min, value));

const refusalReason = (value: BeliefValue, guardrail: ValueGuardrail): ClampReason => {
  if (guardrail.type === 'enum') return 'enum.not_allowed';
  if (!isFiniteNumber(value)) return 'range.not_a_number';
  return value < guardrail.min ? 'range.below_min' : 'range.above_max';
};

const alone = (scoped: Scoped): KeyPolicy => {
  const { guardrail } = scoped;
  switch (guardrail.type) {
    case 'deny':
      return { type: 'deny', by: scoped };
    case 'locked':
      return { type: 'locked', value: guardrail.value, by: scoped };
    case 'range':
      return {
        type: 'bounded',
        checks: [{ scope: scoped.scope, guardrail }],
        interval: { min: guardrail.min, max: guardrail.max },
        fallback: guardrail.default,
      };
    case 'enum':
      return { type: 'bounded', checks: [{ scope: scoped.scope, guardrail }], fallback: guardrail.default };
  }
};

/** The project guardrail narrowed by the organisation's `range` or `enum`, or undefined when it is set aside. */
const narrowed = (organisation: Scoped<ValueGuardrail>, project: Scoped): KeyPolicy | undefined => {
  const { guardrail } = project;
  if (guardrail.type === 'deny') return { type: 'deny', by: project };
  if (guardrail.type === 'locked')
    return withinGuardrail(guardrail.value, organisation.guardrail)
      ? { type: 'locked', value: guardrail.value, by: project }
      : undefined;

  const checks: Scoped<ValueGuardrail>[] = [organisation, { scope: project.scope, guardrail }];
  const org = organisation.guardrail;
  if (org.type === 'range' && guardrail.type === 'range') {
    const interval = { min: Math.max(org.min, guardrail.min), max: Math.min(org.max, guardrail.max) };
    if (interval.min > interval.max) return undefined;
    const seed = guardrail.default ?? org.default;
    return { type: 'bounded', checks, interval, fallback: seed === undefined ? undefined : clampTo(seed, interval) };
  }

  // Not both ranges, so at least one side is an enum: its values are the candidates.
  const listed = guardrail.type === 'enum' ? guardrail.allowed : org.type === 'enum' ? org.allowed : [];
  const admitted = listed.filter((value) => withinGuardrail(value, org) && withinGuardrail(value, guardrail));
  if (admitted.length === 0) return undefined;
  const fallback = [guardrail.default, org.default].find((value) => value !== undefined && admitted.includes(value));
  return { type: 'bounded', checks, fallback: fallback ?? admitted[0] };
};

const policyFor = (organisation: Guardrail | undefined, project: Guardrail | undefined): KeyPolicy | undefined => {
  const projectScoped: Scoped | undefined = project && { scope: 'project', guardrail: project };
  if (organisation === undefined) return projectScoped && alone(projectScoped);
  const organisationScoped: Scoped = { scope: 'organisation', guardrail: organisation };
  if (projectScoped === undefined || organisation.type === 'deny' || organisation.type === 'locked')
    return alone(organisationScoped);
  return narrowed({ scope: 'organisation', guardrail: organisation }, projectScoped) ?? alone(organisationScoped);
};

interface KeyOutcome {
  readonly value?: AppliedValue;
  readonly clamp?: Omit<ClampRecord, 'key'>;
}

const refer = ({ scope, guardrail }: Scoped) => ({ scope, type: guardrail.type });

const outcomeOf = (requested: BeliefValue | undefined, policy: KeyPolicy | undefined): KeyOutcome => {
  if (policy === undefined) return requested === undefined ? {} : { value: { value: requested, source: 'personal' } };

  switch (policy.type) {
    case 'deny':
      return requested === undefined
        ? {}
        : { clamp: { requested, applied: null, guardrail: refer(policy.by), reason: 'denied' } };
    case 'locked': {
      const value: AppliedValue = { value: policy.value, source: 'guardrail' };
      if (requested === undefined || requested === policy.value) return { value };
      return { value, clamp: { requested, applied: policy.value, guardrail: refer(policy.by), reason: 'locked' } };
    }
    case 'bounded': {
      if (requested === undefined)
        return policy.fallback === undefined ? {} : { value: { value: policy.fallback, source: 'default' } };
      const refusedBy = policy.checks.find(({ guardrail }) => !withinGuardrail(requested, guardrail));
      if (refusedBy === undefined) return { value: { value: requested, source: 'personal' } };
      const applied =
        policy.interval !== undefined && isFiniteNumber(requested)
          ? clampTo(requested, policy.interval)
          : policy.fallback;
      const clamp = {
        requested,
        applied: applied ?? null,
        guardrail: refer(refusedBy),
        reason: refusalReason(requested, refusedBy.guardrail),
      };
      return applied === undefined ? { clamp } : { value: { value: applied, source: 'guardrail' }, clamp };
    }
  }
};

/** Own entries only: a key such as `constructor` must not find `Object.prototype`'s. */
const entriesOf = <V>(record: Readonly<Record<string, V>> | undefined): Map<string, V> =>
  new Map(record === undefined ? [] : Object.entries(record));

/** The applied view: personal values clamped by the organisation's guardrails, then the project's. */
export const applyGuardrails = ({ personal, organisation, project }: ApplyGuardrailsInput): AppliedView => {
  const personalValues = entriesOf(personal);
  const organisationGuardrails = entriesOf(organisation);
  const projectGuardrails = entriesOf(project);
  const keys = [...new Set([...personalValues.keys(), ...organisationGuardrails.keys(), ...projectGuardrails.keys()])];

  const values: [string, AppliedValue][] = [];
  const clamps: ClampRecord[] = [];
  for (const key of keys.sort()) {
    const policy = policyFor(organisationGuardrails.get(key), projectGuardrails.get(key));
    const outcome = outcomeOf(personalValues.get(key), policy);
    if (outcome.value !== undefined) values.push([key, outcome.value]);
    if (outcome.clamp !== undefined) clamps.push({ key, ...outcome.clamp });
  }
  return { values: Object.fromEntries(values), clamps };
};

/**
 * Keys whose project guardrail is not applied: the organisation denies or locks the key, or the project
 * guardrail admits no value the organisation admits. In key order.
 */
export const projectGuardrailsSetAside = (organisation: GuardrailSet, project: GuardrailSet): string[] => {
  const organisationGuardrails = entriesOf(organisation);
  return [...entriesOf(project)]
    .filter(([key, guardrail]) => {
      const org = organisationGuardrails.get(key);
      if (org === undefined) return false;
      if (org.type === 'deny' || org.type === 'locked') return true;
      return narrowed({ scope: 'organisation', guardrail: org }, { scope: 'project', guardrail }) === undefined;
    })
    .map(([key]) => key)
    .sort();
};
