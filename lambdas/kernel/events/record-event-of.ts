import type { RecordRevision } from '../records/record.schema.ts';
import { RECORD_EVENT_SCHEMA_VERSION, type RecordEvent, type RecordEventType } from './record-event.schema.ts';

/** The outbox event of a revision about to be committed. */
export const recordEventOf = (
  revision: RecordRevision,
  type: RecordEventType,
  eventId: string,
  idempotencyKey?: string,
): RecordEvent => ({
  event_id: eventId,
  event_type: type,
  tenant: revision.namespace.tenant,
  namespace_hash: revision.namespace.hash,
  record_kind: revision.namespace.kind.name,
  record_id: revision.id,
  revision: revision.revision,
  actor: revision.provenance.revisedBy,
  idempotency_key: idempotencyKey ?? null,
  schema_version: RECORD_EVENT_SCHEMA_VERSION,
  occurred_at: revision.updatedAt,
});
