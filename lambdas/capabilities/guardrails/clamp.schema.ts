import * as z from 'zod';
import { BeliefValue, GuardrailKey, GuardrailScope, GuardrailType } from './guardrail.schema.ts';

/**
 * Why a requested value was changed or dropped. Each reason is true of the *requested* value under the
 * guardrail the clamp record names.
 */
export const ClampReason = z.enum([
  'range.below_min',
  'range.above_max',
  'range.not_a_number',
  'enum.not_allowed',
  'locked',
  'denied',
]);
export type ClampReason = z.infer<typeof ClampReason>;

/** Which guardrail acted: the scope that set it and its type. */
export const GuardrailReference = z.object({ scope: GuardrailScope, type: GuardrailType }).strict();
export type GuardrailReference = z.infer<typeof GuardrailReference>;

/**
 * One personal value the guardrails changed or dropped. `applied` is the value the agent receives, or null
 * when the key was dropped.
 */
export const ClampRecord = z
  .object({
    key: GuardrailKey,
    requested: BeliefValue,
    applied: BeliefValue.nullable(),
    guardrail: GuardrailReference,
    reason: ClampReason,
  })
  .strict();
export type ClampRecord = z.infer<typeof ClampRecord>;

/**
 * Where an applied value came from:
 * - `personal`: the principal's own mature value, unchanged;
 * - `default`: a guardrail default filling a key the principal has no value for;
 * - `guardrail`: imposed by a guardrail, either a locked value (always, even when it equals the personal
 *   one) or the replacement of a personal value the guardrails refused (and then a clamp record exists).
 */
export const ValueSource = z.enum(['personal', 'default', 'guardrail']);
export type ValueSource = z.infer<typeof ValueSource>;

export const AppliedValue = z.object({ value: BeliefValue, source: ValueSource }).strict();
export type AppliedValue = z.infer<typeof AppliedValue>;

/** What an agent may act on: values by key, and every clamp, both in key order. */
export const AppliedView = z
  .object({
    values: z.record(GuardrailKey, AppliedValue),
    clamps: z.array(ClampRecord),
  })
  .strict();
export type AppliedView = z.infer<typeof AppliedView>;
