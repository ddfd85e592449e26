import { beforeEach, describe, expect, it } from 'vitest';
import { InMemoryRecordStore } from '../../../lambdas/adapters/memory/in-memory-record-store.ts';
import { InMemoryMetrics } from '../../../lambdas/adapters/observability/in-memory-metrics.ts';
import type { EventConsumer } from '../../../lambdas/kernel/events/event-consumer.port.ts';
import type { EventPublisher, PublishOutcome } from '../../../lambdas/kernel/events/event-publisher.port.ts';
import { OutboxRelay } from '../../../lambdas/kernel/events/outbox-relay.ts';
import type { RecordEvent } from '../../../lambdas/kernel/events/record-event.schema.ts';
import { ManualClock } from '../../../lambdas/kernel/time/clock.ts';
import { KINDS } from '../../support/record-kinds.ts';
import { eventOf, newRecordId, revisionOf } from '../../support/revisions.ts';
import { scopeOf } from '../../support/scopes.ts';

/** A bus that records what it was given and can refuse chosen events or everything. */
class RecordingPublisher implements EventPublisher {
  readonly published: RecordEvent[] = [];
  refuse: (event: RecordEvent) => boolean = () => false;

  async publish(events: readonly RecordEvent[]): Promise<PublishOutcome> {
    const failed = events.filter((event) => this.refuse(event));
    this.published.push(...events.filter((event) => !failed.includes(event)));
    return { failed };
  }
}

describe('Class: OutboxRelay', () => {
  let clock: ManualClock;
  let store: InMemoryRecordStore;
  let publisher: RecordingPublisher;
  let relay: OutboxRelay;
  const notes = scopeOf().namespace(KINDS.note);

  const commit = async (revisionNumber = 1, id = newRecordId()) => {
    const revision = revisionOf(notes, id, revisionNumber, { updatedAt: clock.now().toISOString() });
    const event = eventOf(revision);
    await store.append(revision, event);
    return event;
  };

  beforeEach(() => {
    clock = new ManualClock('2026-06-01T00:00:00.000Z');
    store = new InMemoryRecordStore({ clock });
    publisher = new RecordingPublisher();
    relay = new OutboxRelay({ outbox: store, publisher, clock, metrics: new InMemoryMetrics() });
  });

  describe('Method: sweep', () => {
    it('publishes every committed event once and clears its marker', async () => {
      const events = [await commit(), await commit(), await commit()];

      const first = await relay.sweep();
      const second = await relay.sweep();

      expect(first).toEqual({ published: 3, failed: 0 });
      expect(second).toEqual({ published: 0, failed: 0 });
      expect(publisher.published.map((event) => event.event_id)).toEqual(events.map((event) => event.event_id));
      expect(await store.pendingEvents(10)).toEqual([]);
    });

    it('loses nothing when the relay died between commit and publish: the sweep publishes the event, once', async () => {
      // Prepare: a commit whose stream-triggered relay never ran
      const event = await commit();
      clock.advance(61_000);

      // Act: the scheduled sweep, which takes only what is over a minute old
      const report = await relay.sweep({ minimumAgeMs: 60_000 });
      await relay.sweep({ minimumAgeMs: 60_000 });

      // Assess
      expect(report.published).toBe(1);
      expect(publisher.published).toEqual([event]);
    });

    it('leaves events younger than the minimum age to the stream path', async () => {
      await commit();

      expect((await relay.sweep({ minimumAgeMs: 60_000 })).published).toBe(0);
      expect(await store.pendingEvents(10)).toHaveLength(1);
    });

    it('keeps the marker of an event the bus refused, and publishes it once the bus takes it', async () => {
      const [refused, accepted] = [await commit(), await commit()];
      publisher.refuse = (event) => event.event_id === refused.event_id;

      const during = await relay.sweep();
      publisher.refuse = () => false;
      const after = await relay.sweep();

      expect(during).toEqual({ published: 1, failed: 1 });
      expect(after).toEqual({ published: 1, failed: 0 });
      expect(publisher.published.map((event) => event.event_id)).toEqual([accepted.event_id, refused.event_id]);
    });
  });

  describe('Method: relay', () => {
    it('reports the markers of the entries that failed, for a partial batch response', async () => {
      await commit();
      await commit();
      const entries = await store.pendingEvents(10);
      publisher.refuse = (event) => event.event_id === entries[1]?.event.event_id;

      const { failedMarkers } = await relay.relay(entries);

      expect(failedMarkers).toEqual([entries[1]?.marker]);
      expect((await store.pendingEvents(10)).map((entry) => entry.marker)).toEqual([entries[1]?.marker]);
    });

    it('runs its inline consumers on each event it published, while the marker still stands, and on no other', async () => {
      // Prepare: an inline consumer that notes each event and whether its marker was still pending
      const [published, refused] = [await commit(), await commit()];
      const seen: [string, boolean][] = [];
      const inline: EventConsumer = {
        name: 'inline',
        consume: async (event) => {
          const pending = (await store.pendingEvents(10)).some((entry) => entry.event.event_id === event.event_id);
          seen.push([event.event_id, pending]);
          return 'applied';
        },
      };
      relay = new OutboxRelay({
        outbox: store,
        publisher,
        clock,
        metrics: new InMemoryMetrics(),
        inlineConsumers: [inline],
      });
      publisher.refuse = (event) => event.event_id === refused.event_id;

      // Act
      await relay.relay(await store.pendingEvents(10));

      // Assess
      expect(seen).toEqual([[published.event_id, true]]);
    });

    it('counts an inline consumer that fails, and still clears the marker and runs the next one', async () => {
      // Prepare
      const event = await commit();
      const metrics = new InMemoryMetrics();
      const after: string[] = [];
      const failing: EventConsumer = {
        name: 'failing',
        consume: async () => {
          throw new Error('unavailable');
        },
      };
      const next: EventConsumer = {
        name: 'next',
        consume: async (event) => {
          after.push(event.event_id);
          return 'applied';
        },
      };
      relay = new OutboxRelay({ outbox: store, publisher, clock, metrics, inlineConsumers: [failing, next] });

      // Act
      const { failedMarkers } = await relay.relay(await store.pendingEvents(10));

      // Assess
      expect(failedMarkers).toEqual([]);
      expect(after).toEqual([event.event_id]);
      expect(metrics.countOf('relay.inline_consumer_failed')).toBe(1);
      expect(await store.pendingEvents(10)).toEqual([]);
    });
  });
});
