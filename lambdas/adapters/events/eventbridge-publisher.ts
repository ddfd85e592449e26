import { type EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { EventPublisher, PublishOutcome } from '../../kernel/events/event-publisher.port.ts';
import type { RecordEvent } from '../../kernel/events/record-event.schema.ts';

/** PutEvents takes at most ten entries per call. */
export const PUT_EVENTS_BATCH = 10;
export const EVENT_SOURCE = 'memory-hub';

/**
 * Publishes to the EventBridge bus in batches of ten. PutEvents can accept a batch and still refuse some of
 * its entries: only those are sent again (a bounded number of times); whatever still fails is reported so
 * the relay leaves its outbox marker in place.
 */
export class EventBridgePublisher implements EventPublisher {
  readonly #client: Pick<EventBridgeClient, 'send'>;
  readonly #busName: string;
  readonly #attempts: number;

  constructor(options: { client: Pick<EventBridgeClient, 'send'>; busName: string; attempts?: number }) {
    this.#client = options.client;
    this.#busName = options.busName;
    this.#attempts = options.attempts ?? 3;
  }

  async publish(events: readonly RecordEvent[]): Promise<PublishOutcome> {
    const failed: RecordEvent[] = [];
    for (let start = 0; start < events.length; start += PUT_EVENTS_BATCH) {
      failed.push(...(await this.#publishBatch(events.slice(start, start + PUT_EVENTS_BATCH))));
    }
    return { failed };
  }

  async #publishBatch(batch: readonly RecordEvent[]): Promise<RecordEvent[]> {
    let pending = [...batch];
    for (let attempt = 0; attempt < this.#attempts && pending.length > 0; attempt++) {
      try {
        const output = await this.#client.send(
          new PutEventsCommand({ Entries: pending.map((event) => this.#entry(event)) }),
        );
        if (!output.FailedEntryCount) return [];
        // Entries come back in request order; a failed one carries an ErrorCode.
        pending = pending.filter((_, index) => output.Entries?.[index]?.ErrorCode !== undefined);
      } catch {
        // The whole call failed (throttled, network): try the same entries again.
      }
    }
    return pending;
  }

  #entry(event: RecordEvent): PutEventsRequestEntry {
    return {
      EventBusName: this.#busName,
      Source: EVENT_SOURCE,
      DetailType: event.event_type,
      Detail: JSON.stringify(event),
      Time: new Date(event.occurred_at),
    };
  }
}
