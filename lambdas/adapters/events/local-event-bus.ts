import type { DeadLetterQueue } from '../../kernel/events/dead-letter-queue.port.ts';
import type { EventConsumer } from '../../kernel/events/event-consumer.port.ts';
import type { EventPublisher, PublishOutcome } from '../../kernel/events/event-publisher.port.ts';
import type { RecordEvent } from '../../kernel/events/record-event.schema.ts';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';

export interface LocalEventBusOptions {
  consumers: readonly EventConsumer[];
  deadLetters: DeadLetterQueue;
  metrics: Metrics;
  /** Deliveries per consumer before an event is dead-lettered (EventBridge retries for 24 hours instead). */
  attempts?: number;
}

/**
 * The in-process stand-in for the EventBridge bus and its rules: every consumer gets every event, retried a
 * few times, then dead-lettered. It can be switched off to rehearse an outage: publishing then fails and
 * the relay leaves the events marked in the outbox. Records commit→applied lag per delivered event.
 */
export class LocalEventBus implements EventPublisher {
  readonly #consumers: readonly EventConsumer[];
  readonly #deadLetters: DeadLetterQueue;
  readonly #metrics: Metrics;
  readonly #attempts: number;
  #available = true;
  /** `[when applied (epoch ms), lag (ms)]` per delivered event: from the revision's commit time
   * (`occurred_at`) to the last consumer having applied it. The newest 100,000 are kept. */
  readonly lagSamples: [number, number][] = [];

  constructor(options: LocalEventBusOptions) {
    this.#consumers = options.consumers;
    this.#deadLetters = options.deadLetters;
    this.#metrics = options.metrics;
    this.#attempts = options.attempts ?? 3;
  }

  /** The consumers it delivers to, as the bus rules of a deployment would name them. */
  get consumerNames(): readonly string[] {
    return this.#consumers.map((consumer) => consumer.name);
  }

  setAvailable(available: boolean): void {
    this.#available = available;
  }

  async publish(events: readonly RecordEvent[]): Promise<PublishOutcome> {
    if (!this.#available) return { failed: events };
    // Side by side, as EventBridge would: consumers are revision-aware, so order does not matter.
    await Promise.all(events.map((event) => this.deliver(event)));
    return { failed: [] };
  }

  /** Hands one event to every consumer (or to the named one, for a replay of its dead letter). */
  async deliver(event: RecordEvent, only?: string): Promise<boolean> {
    let delivered = true;
    for (const consumer of this.#consumers) {
      if (only !== undefined && consumer.name !== only) continue;
      if (!(await this.#deliverTo(consumer, event))) delivered = false;
    }
    const now = Date.now();
    this.lagSamples.push([now, now - Date.parse(event.occurred_at)]);
    if (this.lagSamples.length > 100_000) this.lagSamples.splice(0, 50_000);
    return delivered;
  }

  async #deliverTo(consumer: EventConsumer, event: RecordEvent): Promise<boolean> {
    let lastError: unknown;
    for (let attempt = 0; attempt < this.#attempts; attempt++) {
      try {
        await consumer.consume(event);
        return true;
      } catch (error) {
        lastError = error;
      }
    }
    const reason = lastError instanceof Error ? lastError.name : 'unknown';
    await this.#deadLetters.put({ consumer: consumer.name, event, reason });
    this.#metrics.count('consumer.dead_lettered');
    return false;
  }
}
