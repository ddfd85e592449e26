import * as z from 'zod';
import { RECORD_KIND_NAME } from '../namespaces/record-kind.ts';

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

/**
 * The record kinds version 1 of the contract named when it was frozen. Enumerations only grow, so these stay
 * valid values of `record_kind` whatever capabilities a deployment runs; see `recordEventContract`.
 */
const V1_RECORD_KINDS = [
  'note',
  'profile',
  'preference',
  'pattern',
  'activity',
  'session-events',
  'procedure',
  'task',
  'finding',
  'source',
  'guardrail',
  'idempotency',
] as const;

/**
 * The event as the shared machinery carries it (outbox, relay, bus, consumers): any well-formed kind name
 * passes, since a function meets events of kinds whose modules it does not run.
 */
export const RecordEvent = z.object({
  event_id: z.string().min(1),
  event_type: RecordEventType,
  tenant: z.string().min(1),
  namespace_hash: z.string().min(1),
  record_kind: z.string().regex(RECORD_KIND_NAME),
  record_id: z.string().min(1),
  revision: z.number().int().positive(),
  /** Who caused the revision: the verified principal and calling client, or the system job. */
  actor: z.object({ principal: z.string().min(1), client: z.string().min(1) }).strict(),
  idempotency_key: z.string().nullable(),
  schema_version: z.literal(RECORD_EVENT_SCHEMA_VERSION),
  occurred_at: z.iso.datetime(),
});
export type RecordEvent = z.infer<typeof RecordEvent>;

/**
 * The published contract: the event with `record_kind` enumerated, as a deployment running these kinds (its
 * capabilities' and every kind version 1 named) publishes it. The frozen-baseline test reads this.
 */
export const recordEventContract = (kinds: readonly string[]) =>
  RecordEvent.extend({ record_kind: z.enum([...new Set([...V1_RECORD_KINDS, ...kinds])]) }).meta({
    id: 'RecordEventV1',
  });
