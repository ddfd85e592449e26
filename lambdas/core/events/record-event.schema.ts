import { z } from 'zod';
import { NAMESPACE_KINDS } from '../namespaces/namespace.ts';

/**
 * The event every committed revision carries as its outbox marker, and what the relay publishes. It names
 * what changed, of which kind, by whom — never what it says: no content, and no namespace in clear (a hash
 * stands in; consumers resolve it through the namespace directory).
 *
 * Version 1 of the contract. Adding an optional field is compatible (readers ignore fields they do not
 * know); removing or renaming a field, changing a type, adding a required field or changing
 * `schema_version` is a breaking change: a test compares this schema with the frozen v1 baseline
 * (`record-event.v1.baseline.json`) and fails on it. A breaking change is a new version beside this one.
 */
export const RECORD_EVENT_SCHEMA_VERSION = 1;

export const RecordEventType = z.enum(['record.created', 'record.revised', 'record.deleted', 'record.expired']);
export type RecordEventType = z.infer<typeof RecordEventType>;

export const RecordEvent = z
  .object({
    event_id: z.string().min(1),
    event_type: RecordEventType,
    tenant: z.string().min(1),
    namespace_hash: z.string().min(1),
    record_kind: z.enum(NAMESPACE_KINDS),
    record_id: z.string().min(1),
    revision: z.number().int().positive(),
    /** Who caused the revision: the verified principal and calling client, or the system job. */
    actor: z.object({ principal: z.string().min(1), client: z.string().min(1) }).strict(),
    idempotency_key: z.string().nullable(),
    schema_version: z.literal(RECORD_EVENT_SCHEMA_VERSION),
    occurred_at: z.iso.datetime(),
  })
  .meta({ id: 'RecordEventV1' });
export type RecordEvent = z.infer<typeof RecordEvent>;
