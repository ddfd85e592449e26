import type { Metrics } from '../observability/metrics.port.ts';
import type { Clock } from '../time/clock.ts';
import type { EventConsumer } from './event-consumer.port.ts';
import type { EventPublisher } from './event-publisher.port.ts';
import type { Outbox, OutboxEntry } from './outbox.port.ts';
import type { RecordEvent } from './record-event.schema.ts';

export interface RelayReport {
  readonly published: number;
  readonly failed: number;
}

/**
 * Moves committed events from the outbox to the bus: publish, then clear the marker. A crash between the
 * two republishes the event later (at least once; consumers are idempotent); a crash before publishing
 * leaves the marker, and the sweep finds it. Nothing committed is ever dropped.
 *
 * Consumers whose work is a read or two (the head projection's check that the writer moved the head) run here,
 * on each event the relay publishes, before its marker is cleared: an invocation of their own per event would
 * cost more than the work. Their failure is counted and holds back nothing; each has a repair of its own (the
 * reconciler's), as a bus consumer's dead letter has its replay.
 */
export class OutboxRelay {
  readonly #outbox: Outbox;
  readonly #publisher: EventPublisher;
  readonly #clock: Clock;
  readonly #metrics: Metrics;
  readonly #inlineConsumers: readonly EventConsumer[];

  constructor(deps: {
    outbox: Outbox;
    publisher: EventPublisher;
    clock: Clock;
    metrics: Metrics;
    /** Run by the relay itself on every event it publishes (see above); none by default. */
    inlineConsumers?: readonly EventConsumer[];
  }) {
    this.#outbox = deps.outbox;
    this.#publisher = deps.publisher;
    this.#clock = deps.clock;
    this.#metrics = deps.metrics;
    this.#inlineConsumers = deps.inlineConsumers ?? [];
  }

  /** Publishes the given outbox entries (the stream path) and clears the markers of those that went out. */
  async relay(entries: readonly OutboxEntry[]): Promise<{ failedMarkers: readonly string[] }> {
    if (entries.length === 0) return { failedMarkers: [] };
    const { failed } = await this.#publisher.publish(entries.map((entry) => entry.event));
    const failedIds = new Set(failed.map((event) => event.event_id));
    const failedMarkers = entries.filter((entry) => failedIds.has(entry.event.event_id)).map((entry) => entry.marker);
    const published = entries.filter((entry) => !failedIds.has(entry.event.event_id));
    // Before the markers go: a relay that dies here republishes the events later, and these run again then.
    await Promise.all(published.map((entry) => this.#consumeInline(entry.event)));
    await Promise.all(published.map((entry) => this.#outbox.clearOutboxMarker(entry.marker)));
    this.#metrics.count('relay.published', entries.length - failedMarkers.length);
    if (failedMarkers.length > 0) this.#metrics.count('relay.publish_failed', failedMarkers.length);
    return { failedMarkers };
  }

  async #consumeInline(event: RecordEvent): Promise<void> {
    for (const consumer of this.#inlineConsumers)
      try {
        await consumer.consume(event);
      } catch {
        this.#metrics.count('relay.inline_consumer_failed');
      }
  }

  /**
   * Publishes the entries the given markers name (the stream path, which sees a commit and its marker, not the
   * event): a marker no longer pending was published already. Returns the markers that did not go out.
   */
  async relayMarkers(markers: readonly string[]): Promise<{ failedMarkers: readonly string[] }> {
    const entries = await Promise.all(markers.map((marker) => this.#outbox.pendingEntryOf(marker)));
    return this.relay(entries.filter((entry): entry is OutboxEntry => entry !== undefined));
  }

  /**
   * Republishes everything still marked and at least `minimumAgeMs` old (the scheduled sweep; locally the
   * relay loop with age 0). Stops when the outbox is drained or a round publishes nothing.
   */
  async sweep(options: { minimumAgeMs?: number; batchSize?: number; maxRounds?: number } = {}): Promise<RelayReport> {
    const { minimumAgeMs = 0, batchSize = 100, maxRounds = 50 } = options;
    let published = 0;
    let failed = 0;
    for (let round = 0; round < maxRounds; round++) {
      const occurredBefore = new Date(this.#clock.now().getTime() - minimumAgeMs);
      const due = await this.#outbox.pendingEvents(batchSize, { occurredBefore });
      if (due.length === 0) break;
      const { failedMarkers } = await this.relay(due);
      published += due.length - failedMarkers.length;
      failed = failedMarkers.length;
      if (failedMarkers.length === due.length) break;
    }
    return { published, failed };
  }
}
