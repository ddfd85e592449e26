import type { RecordEvent } from './record-event.schema.ts';

/** `applied`: the event changed the projection; `ignored`: a duplicate, stale or irrelevant event changed nothing. */
export type ConsumeOutcome = 'applied' | 'ignored';

/**
 * A subscriber to record events. Delivery is at least once and in no guaranteed order, so every consumer
 * is idempotent and revision-aware: an event at or below what it already projected changes nothing.
 */
export interface EventConsumer {
  readonly name: string;
  consume(event: RecordEvent): Promise<ConsumeOutcome>;
}
