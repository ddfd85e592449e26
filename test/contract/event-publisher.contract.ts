import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventPublisher, PublishOutcome } from '../../lambdas/kernel/events/event-publisher.port.ts';
import type { RecordEvent } from '../../lambdas/kernel/events/record-event.schema.ts';
import { noteEventsOf } from '../support/revisions.ts';

/** A publisher over its bus, with the bus's controls: what the suite sets up and assesses. */
export interface EventPublisherFixture {
  readonly publisher: EventPublisher;
  /** Events that reached the bus (or, for a bus that delivers itself, its consumers), once per delivery. */
  delivered(): readonly RecordEvent[];
  /**
   * Events the bus took but kept aside for a controlled replay instead of delivering them, such as the local
   * bus's dead letters; always empty for a bus that refuses at the door (EventBridge's PutEvents).
   */
  setAside(): Promise<readonly RecordEvent[]>;
  /** Makes the bus unreachable (`true`) or reachable again (`false`). */
  outage(on: boolean): void;
  /** Makes the bus refuse the event with this id every time it is offered; what "refuse" means is the fixture's. */
  refuse(eventId: string): void;
  close(): Promise<void>;
}

const idsOf = (events: readonly RecordEvent[]): string[] => events.map((event) => event.event_id).sort();

/**
 * What every EventPublisher must do for the relay: every event handed over is accounted for exactly once —
 * delivered, reported in `failed` (so the relay keeps its outbox marker and tries again), or set aside by the
 * bus for a replay — never two of these and never none; more than ten at once is fine; an unreachable bus
 * delivers nothing and fails everything; one refused event does not hold back the others.
 *
 * Where the implementations differ, the contract states only what both honour: EventBridge refuses an entry
 * at PutEvents, so the publisher must report it failed; the local bus accepts every event and it is a
 * consumer that refuses, which the bus dead-letters (as EventBridge's own target DLQ would) instead of
 * reporting it failed. So a refused event must be failed XOR set aside, never delivered and never dropped;
 * which of the two is asserted in each implementation's own test, beside the fixture.
 */
export const describeEventPublisherContract = (name: string, create: () => Promise<EventPublisherFixture>) => {
  describe(`Contract: EventPublisher (${name})`, () => {
    let fixture: EventPublisherFixture;

    /** Every event handed over is in exactly one of delivered, failed and set aside; nothing else is in any. */
    const expectEachAccountedForOnce = async (events: readonly RecordEvent[], outcome: PublishOutcome) => {
      const setAside = await fixture.setAside();
      const accounted = [...fixture.delivered(), ...outcome.failed, ...setAside];
      expect(idsOf(accounted)).toEqual(idsOf(events));
    };

    beforeEach(async () => {
      fixture = await create();
    });

    afterEach(async () => {
      await fixture.close();
    });

    describe('Method: publish', () => {
      it('delivers every event handed over, whole, and reports none failed', async () => {
        // Prepare
        const events = noteEventsOf(5);

        // Act
        const outcome = await fixture.publisher.publish(events);

        // Assess: each delivered once, and as it was handed over (not just its id)
        expect(outcome.failed).toEqual([]);
        expect([...fixture.delivered()].sort(byId)).toEqual([...events].sort(byId));
        await expectEachAccountedForOnce(events, outcome);
      });

      it('publishes more than ten events at once', async () => {
        // Prepare: more than one PutEvents call can carry
        const events = noteEventsOf(23);

        // Act
        const outcome = await fixture.publisher.publish(events);

        // Assess
        expect(outcome.failed).toEqual([]);
        expect(idsOf(fixture.delivered())).toEqual(idsOf(events));
      });

      it('publishes nothing, and fails nothing, when handed nothing', async () => {
        // Act
        const outcome = await fixture.publisher.publish([]);

        // Assess
        expect(outcome.failed).toEqual([]);
        expect(fixture.delivered()).toEqual([]);
      });

      it('during an outage reports every event failed, whole, and delivers none', async () => {
        // Prepare
        const events = noteEventsOf(23);
        fixture.outage(true);

        // Act
        const outcome = await fixture.publisher.publish(events);

        // Assess: failed events are the ones handed over, so the relay can match them to its markers
        expect([...outcome.failed].sort(byId)).toEqual([...events].sort(byId));
        expect(fixture.delivered()).toEqual([]);
        await expectEachAccountedForOnce(events, outcome);
      });

      it('publishes the events an outage failed once they are handed over again after it', async () => {
        // Prepare
        const events = noteEventsOf(12);
        fixture.outage(true);
        const during = await fixture.publisher.publish(events);
        fixture.outage(false);

        // Act: what the relay does with the markers it kept
        const after = await fixture.publisher.publish(during.failed);

        // Assess
        expect(after.failed).toEqual([]);
        expect(idsOf(fixture.delivered())).toEqual(idsOf(events));
      });

      it('delivers the others when one event is refused, and accounts for the refused one exactly once', async () => {
        // Prepare: refusals in the first and in the third batch of ten
        const events = noteEventsOf(23);
        const refused = [events[3], events[21]] as RecordEvent[];
        for (const event of refused) fixture.refuse(event.event_id);

        // Act
        const outcome = await fixture.publisher.publish(events);

        // Assess: see the suite's comment for why "failed or set aside" and not just "failed"
        const refusedIds = idsOf(refused);
        expect(idsOf(fixture.delivered())).toEqual(
          idsOf(events.filter((event) => !refusedIds.includes(event.event_id))),
        );
        expect(idsOf([...outcome.failed, ...(await fixture.setAside())])).toEqual(refusedIds);
        await expectEachAccountedForOnce(events, outcome);
      });
    });
  });
};

const byId = (a: RecordEvent, b: RecordEvent) => a.event_id.localeCompare(b.event_id);
