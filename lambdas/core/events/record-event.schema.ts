import { z } from 'zod';

/**
 * The event every committed revision carries as its outbox marker. It names what changed and never what
 * it says: no content, no namespace in clear (a hash stands in), no principal. Version 1 of the contract.
 */
export const RECORD_EVENT_SCHEMA_VERSION = 1;

export const RecordEventType = z.enum(['record.created', 'record.revised', 'record.deleted']);
export type RecordEventType = z.infer<typeof RecordEventType>;

export const RecordEvent = z
  .object({
    event_id: z.string().min(1),
    event_type: RecordEventType,
    tenant: z.string().min(1),
    namespace_hash: z.string().min(1),
    record_id: z.string().min(1),
    revision: z.number().int().positive(),
    idempotency_key: z.string().nullable(),
    schema_version: z.literal(RECORD_EVENT_SCHEMA_VERSION),
    occurred_at: z.iso.datetime(),
  })
  .strict();
export type RecordEvent = z.infer<typeof RecordEvent>;
