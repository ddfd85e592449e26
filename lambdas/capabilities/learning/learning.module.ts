import { defineModule } from '../../composition/capability-module.ts';
import { guardrailsModule } from '../guardrails/guardrails.module.ts';
import { AppliedMemoryService } from './applied-memory-service.ts';
import { beliefSearchProjections } from './belief.search.ts';
import { BELIEF_KINDS } from './belief-record.ts';
import { BELIEF_SYNTHESIS, beliefSynthesis } from './belief-synthesis.workflow.ts';
import { BeliefsService } from './beliefs-service.ts';
import { learningHandlers } from './http/learning.handlers.ts';
import { LEARNING_OPERATIONS } from './http/learning.operations.ts';
import { learningSettings } from './learning.config.ts';
import { SESSION_EVENTS, SessionEventInput } from './session-event.schema.ts';
import { SessionEventsService } from './session-events-service.ts';

/**
 * Learned memory (reference 000): session events drafted into candidate rules, merged into beliefs that
 * mature, decay and expire, and the applied view of them clamped by guardrails.
 */
export const learningModule = defineModule({
  name: 'learning',
  recordKinds: [SESSION_EVENTS, ...Object.values(BELIEF_KINDS)],
  operations: LEARNING_OPERATIONS,
  errorStatuses: { 'learning.rule_mismatch': 422 },
  config: [learningSettings],
  workflows: [BELIEF_SYNTHESIS],
  requires: [guardrailsModule],
  build: ({ kernel, http, use }) => {
    const learning = (agent: string | undefined) => learningSettings.of(kernel.config.current(), agent);
    const beliefs = new BeliefsService({
      revisions: kernel.revisions,
      heads: kernel.heads,
      writer: kernel.writer,
      clock: kernel.clock,
      ids: kernel.ids,
      learning,
    });
    const sessionEvents = new SessionEventsService({
      events: kernel.recordService({
        kind: SESSION_EVENTS,
        content: SessionEventInput,
        horizonDays: (_, event) => learning(event.agent).sessionEventTtlDays,
        // Short-term memory may hold what the principal said, identifiers included: encrypted, expiring and
        // never shared. The screen guards what crosses into long-term memory (see SessionEventsService).
        screen: () => {},
      }),
      beliefs,
      audit: kernel.auditTrail,
      clock: kernel.clock,
      ids: kernel.ids,
    });
    const appliedMemory = new AppliedMemoryService({
      beliefs,
      guardrails: use(guardrailsModule).guardrails,
      audit: kernel.auditTrail,
      clock: kernel.clock,
    });
    const services = { sessionEvents, beliefs, appliedMemory };
    return {
      services,
      handlers: learningHandlers(services, http),
      searchable: beliefSearchProjections({ clock: kernel.clock, learning }),
      workflows: [
        beliefSynthesis({
          heads: kernel.heads,
          directory: kernel.directory,
          clock: kernel.clock,
          writer: kernel.writer,
          kinds: kernel.kinds,
          learning,
        }),
      ],
    };
  },
});
