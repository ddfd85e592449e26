import { PutEventsCommand, ThrottlingException } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import { EventBridgePublisher } from '../../../lambdas/adapters/events/eventbridge-publisher.ts';
import { LocalEventBus } from '../../../lambdas/adapters/events/local-event-bus.ts';
import { InMemoryDeadLetterQueue } from '../../../lambdas/adapters/memory/in-memory-dead-letter-queue.ts';
import { InMemoryMetrics } from '../../../lambdas/adapters/observability/in-memory-metrics.ts';
import type { EventConsumer } from '../../../lambdas/kernel/events/event-consumer.port.ts';
import type { RecordEvent } from '../../../lambdas/kernel/events/record-event.schema.ts';
import { describeEventPublisherContract, type EventPublisherFixture } from '../../contract/event-publisher.contract.ts';
import { EventBridgeStandIn } from '../../support/eventbridge-stand-in.ts';
import { KINDS } from '../../support/record-kinds.ts';
import { eventOf, newRecordId, noteEventsOf, revisionOf } from '../../support/revisions.ts';
import { scopeOf } from '../../support/scopes.ts';

const BUS = 'memory-hub-test';
const CONSUMER = 'contract-consumer';

/**
 * EventBridgePublisher over the PutEvents stand-in. "Delivered" is what the bus accepted; an outage throttles
 * every call; "refused" is PutEvents answering that entry with an ErrorCode every time it is sent, which
 * the publisher must report failed. Nothing is ever set aside: PutEvents refuses at the door.
 */
const eventBridgeFixture = () => {
  const bus = new EventBridgeStandIn();
  const publisher = new EventBridgePublisher({ client: bus.client, busName: BUS });
  return {
    bus,
    publisher,
    delivered: () => bus.accepted.map((entry) => entry.event),
    setAside: async () => [],
    outage: (on: boolean) => bus.throttle(on ? Number.POSITIVE_INFINITY : 0),
    refuse: (eventId: string) => bus.refuse(eventId),
    close: async () => undefined,
  } satisfies EventPublisherFixture & Record<string, unknown>;
};

/**
 * LocalEventBus with one consumer that records what it applied. An outage is `setAvailable(false)`;
 * "refused" is that consumer throwing for the event on every attempt, so the bus dead-letters it: "set
 * aside" is what the dead-letter queue holds, and the bus does not report it failed.
 */
const localBusFixture = () => {
  const applied: RecordEvent[] = [];
  const refused = new Set<string>();
  const attempts = new Map<string, number>();
  const consumer: EventConsumer = {
    name: CONSUMER,
    consume: async (event) => {
      attempts.set(event.event_id, (attempts.get(event.event_id) ?? 0) + 1);
      if (refused.has(event.event_id)) throw Object.assign(new Error('refused'), { name: 'RefusedByConsumer' });
      applied.push(event);
      return 'applied';
    },
  };
  const deadLetters = new InMemoryDeadLetterQueue();
  const metrics = new InMemoryMetrics();
  const publisher = new LocalEventBus({ consumers: [consumer], deadLetters, metrics });
  return {
    attempts,
    deadLetters,
    metrics,
    publisher,
    delivered: () => applied,
    setAside: async () => (await deadLetters.receive(1000)).map((letter) => letter.event),
    outage: (on: boolean) => publisher.setAvailable(!on),
    refuse: (eventId: string) => {
      refused.add(eventId);
    },
    close: async () => undefined,
  } satisfies EventPublisherFixture & Record<string, unknown>;
};

describeEventPublisherContract('EventBridgePublisher over the PutEvents stand-in', async () => eventBridgeFixture());

describeEventPublisherContract('LocalEventBus with a recording consumer', async () => localBusFixture());

describe('Fixture: EventBridgePublisher over the PutEvents stand-in', () => {
  it('reports a refused entry failed, having offered it three times, so its outbox marker stays', async () => {
    // Prepare
    const fixture = eventBridgeFixture();
    const events = noteEventsOf(3);
    fixture.refuse(events[1]?.event_id as string);

    // Act
    const outcome = await fixture.publisher.publish(events);

    // Assess
    expect(outcome.failed).toEqual([events[1]]);
    expect(fixture.bus.calls.filter((call) => call.includes(events[1]?.event_id as string))).toHaveLength(3);
  });

  it('sends each event to the named bus, from memory-hub, with its type as the detail type', async () => {
    // Prepare
    const fixture = eventBridgeFixture();
    const events = noteEventsOf(2);

    // Act
    await fixture.publisher.publish(events);

    // Assess
    expect(fixture.bus.accepted.map(({ busName, source, detailType }) => ({ busName, source, detailType }))).toEqual([
      { busName: BUS, source: 'memory-hub', detailType: 'record.created' },
      { busName: BUS, source: 'memory-hub', detailType: 'record.created' },
    ]);
  });

  it('tries a throttled call again and loses nothing', async () => {
    // Prepare: one call throttled, as a burst of publishing might meet
    const fixture = eventBridgeFixture();
    const events = noteEventsOf(4);
    fixture.bus.throttle(1);

    // Act
    const outcome = await fixture.publisher.publish(events);

    // Assess
    expect(outcome.failed).toEqual([]);
    expect(fixture.delivered().map((event) => event.event_id)).toEqual(events.map((event) => event.event_id));
    expect(fixture.bus.calls).toHaveLength(2);
  });

  it('sends at most ten entries per PutEvents call, on the named bus, with the event type as detail type', async () => {
    // Prepare
    const fixture = eventBridgeFixture();
    const published = noteEventsOf(23);

    // Act
    const outcome = await fixture.publisher.publish(published);

    // Assess
    expect(outcome.failed).toEqual([]);
    expect(fixture.bus.calls.map((call) => call.length)).toEqual([10, 10, 3]);
    expect(fixture.bus.accepted.at(-3)).toMatchObject({
      busName: BUS,
      source: 'memory-hub',
      detailType: 'record.created',
    });
  });

  it('reports entries that keep failing, so their outbox markers stay', async () => {
    // Prepare
    const fixture = eventBridgeFixture();
    const published = noteEventsOf(3);
    const stuck = published[2]?.event_id as string;
    fixture.refuse(stuck);

    // Act
    const outcome = await fixture.publisher.publish(published);

    // Assess
    expect(outcome.failed.map((event) => event.event_id)).toEqual([stuck]);
    expect(fixture.bus.calls).toHaveLength(3);
  });

  it('re-sends only the entries that failed', async () => {
    // Prepare: two entries of the batch refused the first time they are sent
    const fixture = eventBridgeFixture();
    const published = noteEventsOf(5);
    for (const flaky of [published[1], published[3]]) fixture.bus.refuse(flaky?.event_id as string, { times: 1 });

    // Act
    const outcome = await fixture.publisher.publish(published);

    // Assess
    expect(outcome.failed).toEqual([]);
    expect(fixture.bus.calls[1]).toEqual([published[1]?.event_id, published[3]?.event_id]);
  });

  it('sends each event’s occurred_at as the entry’s Time', async () => {
    // Prepare: events that occurred at different times
    const fixture = eventBridgeFixture();
    const notes = scopeOf().namespace(KINDS.note);
    const occurred = ['2026-03-01T09:00:00.000Z', '2026-03-02T10:30:00.000Z'];
    const events = occurred.map((at) => eventOf(revisionOf(notes, newRecordId(), 1, { createdAt: at, updatedAt: at })));

    // Act
    await fixture.publisher.publish(events);

    // Assess
    expect(events.map((event) => event.occurred_at)).toEqual(occurred);
    expect(fixture.bus.accepted.map((entry) => entry.time?.toISOString())).toEqual(occurred);
  });
});

describe('Fixture: LocalEventBus with a recording consumer', () => {
  it('dead-letters an event its consumer keeps refusing, naming the consumer and the error class, and reports nothing failed', async () => {
    // Prepare
    const fixture = localBusFixture();
    const events = noteEventsOf(3);
    fixture.refuse(events[0]?.event_id as string);

    // Act
    const outcome = await fixture.publisher.publish(events);

    // Assess
    expect(outcome.failed).toEqual([]);
    expect((await fixture.deadLetters.receive(10)).map(({ receipt: _, ...letter }) => letter)).toEqual([
      { consumer: CONSUMER, event: events[0], reason: 'RefusedByConsumer' },
    ]);
    expect(fixture.attempts.get(events[0]?.event_id as string)).toBe(3);
    expect(fixture.metrics.countOf('consumer.dead_lettered')).toBe(1);
  });
});

describe('Stand-in: EventBridge PutEvents', () => {
  const entryOf = (event: RecordEvent) => ({
    EventBusName: BUS,
    Source: 'memory-hub',
    DetailType: event.event_type,
    Detail: JSON.stringify(event),
  });

  it('fails a call of more than ten entries, or of none, whole with a ValidationException', async () => {
    // Prepare
    const bus = new EventBridgeStandIn();

    // Act
    const tooMany = bus.client.send(new PutEventsCommand({ Entries: noteEventsOf(11).map(entryOf) }));
    const none = bus.client.send(new PutEventsCommand({ Entries: [] }));

    // Assess
    await expect(tooMany).rejects.toMatchObject({ name: 'ValidationException', $fault: 'client' });
    await expect(none).rejects.toMatchObject({ name: 'ValidationException' });
    expect(bus.accepted).toEqual([]);
  });

  it('answers entries in request order, a refused or malformed one with an ErrorCode, and counts the failures', async () => {
    // Prepare
    const bus = new EventBridgeStandIn();
    const events = noteEventsOf(3);
    bus.refuse(events[1]?.event_id as string, { errorCode: 'ThrottlingException' });
    const entries = [...events.map(entryOf), { ...entryOf(events[0] as RecordEvent), Detail: 'not json' }];

    // Act
    const output = await bus.client.send(new PutEventsCommand({ Entries: entries }));

    // Assess
    expect(output.FailedEntryCount).toBe(2);
    expect(output.Entries?.map((entry) => entry.ErrorCode ?? 'ok')).toEqual([
      'ok',
      'ThrottlingException',
      'ok',
      'MalformedDetail',
    ]);
    expect(bus.accepted.map((entry) => entry.event)).toEqual([events[0], events[2]]);
  });

  it('refuses an entry only as many times as told, then accepts it', async () => {
    // Prepare
    const bus = new EventBridgeStandIn();
    const [event] = noteEventsOf(1) as [RecordEvent];
    bus.refuse(event.event_id, { times: 1 });

    // Act
    const first = await bus.client.send(new PutEventsCommand({ Entries: [entryOf(event)] }));
    const second = await bus.client.send(new PutEventsCommand({ Entries: [entryOf(event)] }));

    // Assess
    expect([first.FailedEntryCount, second.FailedEntryCount]).toEqual([1, 0]);
    expect(bus.accepted.map((entry) => entry.event)).toEqual([event]);
  });

  it('throttles whole calls with a ThrottlingException while told to, accepting nothing of them', async () => {
    // Prepare
    const bus = new EventBridgeStandIn();
    bus.throttle(1);

    // Act
    const throttled = bus.client.send(new PutEventsCommand({ Entries: noteEventsOf(2).map(entryOf) }));

    // Assess
    await expect(throttled).rejects.toBeInstanceOf(ThrottlingException);
    expect(bus.accepted).toEqual([]);
    expect(
      (await bus.client.send(new PutEventsCommand({ Entries: noteEventsOf(1).map(entryOf) }))).FailedEntryCount,
    ).toBe(0);
  });
});
