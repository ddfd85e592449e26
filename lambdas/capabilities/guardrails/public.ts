/**
 * What other capabilities may use of guardrails (learning applies them to what it has learned). Anything
 * not exported here is guardrails' own: the boundary rules refuse an import of it from another capability.
 */

export { AppliedView, ClampRecord, ValueSource } from './clamp.schema.ts';
export { applyGuardrails } from './clamp.ts';
export { GUARDRAIL, type Guardrail, type GuardrailSet } from './guardrail.schema.ts';
export type { GuardrailSpace, GuardrailsService } from './guardrails-service.ts';
export { RULE_KEY_PATTERN, RULE_STRING_MAX_LENGTH, RuleKey, RuleValue } from './rule-value.schema.ts';
