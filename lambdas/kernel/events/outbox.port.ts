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
  /**
   * Committed revisions still marked for publication, oldest first: up to `limit` of them, of those that
   * occurred at or before `occurredBefore` when it is given.
   */
  pendingEvents(limit: number, options?: { readonly occurredBefore?: Date }): Promise<readonly OutboxEntry[]>;

  /** The entry `marker` names while it is pending; nothing once it has been cleared (published already). */
  pendingEntryOf(marker: string): Promise<OutboxEntry | undefined>;

  /** Clears one outbox marker once its event is published; clearing twice is harmless. */
  clearOutboxMarker(marker: string): Promise<void>;
}
