import type { AuditTrail } from '../../kernel/audit/audit-trail.port.ts';
import type { ConsumeOutcome, EventConsumer } from '../../kernel/events/event-consumer.port.ts';
import type { RecordEvent } from '../../kernel/events/record-event.schema.ts';
import type { RecordKind, RecordKinds } from '../../kernel/namespaces/record-kind.ts';

export const AUDIT_CONSUMER = 'audit-trail';

/** Kinds declared `audited: false` are audited where what they teach lands (session events: by their beliefs). */
export const auditsKind = (kind: RecordKind): boolean => kind.audited;

/**
 * Writes one audit entry per committed revision, keyed by the event id so redelivery adds nothing. A kind
 * declared `audited: false` is skipped: its capability audits it where what it teaches lands (session events,
 * whose beliefs are audited revision by revision). A kind this function does not know is audited.
 */
export class AuditConsumer implements EventConsumer {
  readonly name = AUDIT_CONSUMER;
  readonly #trail: AuditTrail;
  readonly #kinds: RecordKinds;

  constructor(deps: { trail: AuditTrail; kinds: RecordKinds }) {
    this.#trail = deps.trail;
    this.#kinds = deps.kinds;
  }

  async consume(event: RecordEvent): Promise<ConsumeOutcome> {
    const kind = this.#kinds.get(event.record_kind);
    if (kind && !auditsKind(kind)) return 'ignored';
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
