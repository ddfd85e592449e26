import * as z from 'zod';
import { defineRecordKind } from '../../kernel/namespaces/record-kind.ts';
import { RULE_KEY_MESSAGE, RULE_KEY_PATTERN, RuleKey, RuleValue } from './rule-value.schema.ts';

/** A guardrail, one record per key: the organisation's own, or a project's. */
export const GUARDRAIL = defineRecordKind({ name: 'guardrail', organisationOwned: true });

/* A guardrail bounds a belief's value, so its key and values are a belief's (see `rule-value.schema.ts`). */
export const GUARDRAIL_KEY_PATTERN = RULE_KEY_PATTERN;
export const GuardrailKey = RuleKey;
export type GuardrailKey = z.infer<typeof GuardrailKey>;
export const BeliefValue = RuleValue;
export type BeliefValue = z.infer<typeof BeliefValue>;

export const ENUM_ALLOWED_MAX = 64;
export const GUARDRAIL_SET_MAX_KEYS = 256;

/** Where a guardrail was set. Organisation guardrails bound project ones (see `clamp.ts`). */
export const GuardrailScope = z.enum(['organisation', 'project']);
export type GuardrailScope = z.infer<typeof GuardrailScope>;

export const GUARDRAIL_TYPES = ['range', 'enum', 'locked', 'deny'] as const;
export const GuardrailType = z.enum(GUARDRAIL_TYPES);
export type GuardrailType = z.infer<typeof GuardrailType>;

/** A strict object whose refusal of an unknown field can say why, for the fields people reach for by mistake. */
const strictObjectExplaining = <Shape extends z.ZodRawShape>(shape: Shape, explanations: Record<string, string>) =>
  z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return undefined;
      const explained = issue.keys.find((key) => Object.hasOwn(explanations, key));
      return explained === undefined ? `unknown field(s): ${issue.keys.join(', ')}` : explanations[explained];
    },
  });

const FiniteNumber = (field: string) => z.number({ error: `${field} must be a finite number` });

/** Numbers between `min` and `max` inclusive; out-of-range numbers move to the nearest bound. */
export const RangeGuardrail = strictObjectExplaining(
  {
    type: z.literal('range'),
    min: FiniteNumber('min'),
    max: FiniteNumber('max'),
    default: FiniteNumber('default').optional(),
  },
  { value: 'a range guardrail takes min, max and an optional default, not value', allowed: 'allowed belongs to enum' },
)
  .refine((range) => range.min <= range.max, { message: 'min must not exceed max', path: ['max'] })
  .refine((range) => range.default === undefined || (range.default >= range.min && range.default <= range.max), {
    message: 'default must lie within [min, max]',
    path: ['default'],
  });
export type RangeGuardrail = z.infer<typeof RangeGuardrail>;

/** One of a list of values; anything else is replaced by `default`, which is therefore required. */
export const EnumGuardrail = strictObjectExplaining(
  {
    type: z.literal('enum'),
    allowed: z
      .array(BeliefValue)
      .min(1, 'allowed must list at least one value')
      .max(ENUM_ALLOWED_MAX, `allowed lists at most ${ENUM_ALLOWED_MAX} values`)
      .refine((allowed) => new Set(allowed).size === allowed.length, 'allowed values must be unique'),
    default: BeliefValue,
  },
  { value: 'an enum guardrail takes allowed and default, not value', min: 'min belongs to range' },
).refine((guardrail) => guardrail.allowed.includes(guardrail.default), {
  message: 'default must be one of the allowed values',
  path: ['default'],
});
export type EnumGuardrail = z.infer<typeof EnumGuardrail>;

/** Always `value`, whatever the principal believes, and present even when the principal believes nothing. */
export const LockedGuardrail = strictObjectExplaining(
  { type: z.literal('locked'), value: BeliefValue },
  { default: 'a locked guardrail always applies its value, so it takes value, not default' },
);
export type LockedGuardrail = z.infer<typeof LockedGuardrail>;

/** The key never reaches an agent. */
export const DenyGuardrail = strictObjectExplaining(
  { type: z.literal('deny') },
  {
    default: 'a deny guardrail drops the key, so it takes no default',
    value: 'a deny guardrail drops the key, so it takes no value',
  },
);
export type DenyGuardrail = z.infer<typeof DenyGuardrail>;

export const Guardrail = z.discriminatedUnion('type', [RangeGuardrail, EnumGuardrail, LockedGuardrail, DenyGuardrail], {
  error: (issue) => (issue.code === 'invalid_union' ? `type must be one of ${GUARDRAIL_TYPES.join(', ')}` : undefined),
});
export type Guardrail = z.infer<typeof Guardrail>;

/** The guardrails one scope (the organisation, or one project) sets, by key. */
export const GuardrailSet = z
  .record(GuardrailKey, Guardrail, {
    error: (issue) => (issue.code === 'invalid_key' ? RULE_KEY_MESSAGE : undefined),
  })
  .refine(
    (set) => Object.keys(set).length <= GUARDRAIL_SET_MAX_KEYS,
    `a scope sets at most ${GUARDRAIL_SET_MAX_KEYS} guardrails`,
  );
export type GuardrailSet = z.infer<typeof GuardrailSet>;
