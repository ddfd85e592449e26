import { defineModule } from '../../composition/capability-module.ts';
import { GUARDRAIL, GUARDRAIL_KEY_PATTERN, Guardrail } from './guardrail.schema.ts';
import { GuardrailsService } from './guardrails-service.ts';
import { guardrailsHandlers } from './http/guardrails.handlers.ts';
import { GUARDRAILS_OPERATIONS } from './http/guardrails.operations.ts';

/** A hundred years: guardrails do not expire, but every record carries an expiry. */
const GUARDRAIL_HORIZON_DAYS = 36_500;

/**
 * Guardrails: the organisation's and each project's bounds on what learned memory may apply (ranges,
 * enumerations, locked and denied keys), managed by their admins and read by every member.
 */
export const guardrailsModule = defineModule({
  name: 'guardrails',
  recordKinds: [GUARDRAIL],
  operations: GUARDRAILS_OPERATIONS,
  errorStatuses: { 'guardrail.conflicts_with_organisation': 409, 'guardrail.limit_reached': 409 },
  build: ({ kernel, http }) => {
    const guardrails = new GuardrailsService(
      kernel.recordService({
        kind: GUARDRAIL,
        content: Guardrail,
        // Guardrails are policy, not memory: they stay until an admin removes them.
        horizonDays: () => GUARDRAIL_HORIZON_DAYS,
        idPattern: GUARDRAIL_KEY_PATTERN,
      }),
    );
    return { services: { guardrails }, handlers: guardrailsHandlers(guardrails, http) };
  },
});
