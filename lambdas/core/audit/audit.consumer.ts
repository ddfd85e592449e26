import type { ConsumeOutcome, EventConsumer } from '../events/event-consumer.port.ts';
import type { RecordEvent } from '../events/record-event.schema.ts';
import type { AuditTrail } from './audit-trail.port.ts';

/**
 * Kinds whose revisions are not audited one by one: session events are the principal's own short-term input,
 * encrypted and expiring, written at the pace of a conversation. What they teach is audited where it lands
 * (every belief revision), and what is refused on the way is audited by the learning service.
 */
const UNAUDITED_KINDS: ReadonlySet<string> = new Set(['session-events']);

/** Writes one audit entry per committed revision, keyed by the event id so redelivery adds nothing. */
export class AuditConsumer implements EventConsumer {
  readonly name = 'audit-trail';
  readonly #trail: AuditTrail;

  constructor(deps: { trail: AuditTrail }) {
    this.#trail = deps.trail;
  }

  async consume(event: RecordEvent): Promise<ConsumeOutcome> {
    if (UNAUDITED_KINDS.has(event.record_kind)) return 'ignored';
    const outcome = await this.#trail.append(event.tenant, {
      id: event.event_id,
      occurredAt: event.occurred_at,
      actor: event.actor,
      action: event.event_type,
      recordKind: event.record_kind,
      recordId: event.record_id,
      revision: event.revision,
      decision: 'committed',
      reasonCode: event.event_type.replace('record.', 'revision.'),
    });
    return outcome === 'appended' ? 'applied' : 'ignored';
  }
}
