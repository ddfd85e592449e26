import type { RecordEvent } from './record-event.schema.ts';

/** A committed revision whose event has not been published yet; `marker` is opaque to everyone but the store. */
export interface OutboxEntry {
  readonly event: RecordEvent;
  readonly marker: string;
}

/**
 * The events of committed revisions not yet published: each revision is marked from the moment it commits
 * (so nothing committed can be dropped), and the relay clears the marker once published.
 */
export interface Outbox {
  /** Committed revisions still marked for publication, oldest first. */
  pendingEvents(limit: number): Promise<readonly OutboxEntry[]>;

  /** Clears one outbox marker once its event is published; clearing twice is harmless. */
  clearOutboxMarker(marker: string): Promise<void>;
}
