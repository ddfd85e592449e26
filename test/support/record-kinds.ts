/** The record kinds tests build namespaces of, as their capabilities declare them. */

import { RECORD_KINDS } from '../../lambdas/app/service-tables.ts';
import { GUARDRAIL } from '../../lambdas/capabilities/guardrails/guardrail.schema.ts';
import { BELIEF_KINDS } from '../../lambdas/capabilities/learning/belief-record.ts';
import { SESSION_EVENTS } from '../../lambdas/capabilities/learning/session-event.schema.ts';
import { NOTE } from '../../lambdas/capabilities/notes/note.schema.ts';

export const KINDS = {
  note: NOTE,
  guardrail: GUARDRAIL,
  'session-events': SESSION_EVENTS,
  profile: BELIEF_KINDS.profile,
  preference: BELIEF_KINDS.preference,
  pattern: BELIEF_KINDS.pattern,
} as const;

/** Every kind of the service, as the system jobs know them. */
export { RECORD_KINDS };
