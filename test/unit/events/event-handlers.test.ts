import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent, EventBridgeEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { outboxAttributesOf, outboxMarkerOf } from '../../../lambdas/adapters/dynamodb/dynamodb-outbox.ts';
import { InMemoryRecordStore } from '../../../lambdas/adapters/memory/in-memory-record-store.ts';
import { InMemoryMetrics } from '../../../lambdas/adapters/observability/in-memory-metrics.ts';
import { consumerHandler, relayOutboxStreamHandler } from '../../../lambdas/composition/aws-event-handlers.ts';
import { OutboxRelay } from '../../../lambdas/kernel/events/outbox-relay.ts';
import type { RecordEvent } from '../../../lambdas/kernel/events/record-event.schema.ts';
import { ManualClock } from '../../../lambdas/kernel/time/clock.ts';
import { KINDS } from '../../support/record-kinds.ts';
import { eventOf, newRecordId, revisionOf } from '../../support/revisions.ts';
import { scopeOf } from '../../support/scopes.ts';

const streamRecord = (id: string, image: Record<string, AttributeValue>) => ({
  eventID: id,
  eventName: 'INSERT' as const,
  dynamodb: { NewImage: image as never },
});

describe('Handler: relayOutboxStream', () => {
  it('publishes the events of a stream batch’s revisions still marked and reports only the failed ones as batch item failures', async () => {
    // Prepare
    const notes = scopeOf().namespace(KINDS.note);
    const [ok, refused] = [eventOf(revisionOf(notes, newRecordId(), 1)), eventOf(revisionOf(notes, newRecordId(), 1))];
    const [published] = [eventOf(revisionOf(notes, newRecordId(), 1))];
    const image = (event: RecordEvent) => ({
      pk: { S: notes.key },
      sk: { S: `R#${event.record_id}#0000000001` },
      ...marshall(outboxAttributesOf(event)),
    });
    // The outbox still holds the markers of `ok` and `refused`; `published`'s went out already.
    const pending = new Map(
      [ok, refused].map((event) => [outboxMarkerOf(event), { event, marker: outboxMarkerOf(event) }]),
    );
    const cleared: string[] = [];
    const relay = new OutboxRelay({
      outbox: {
        pendingEvents: async () => [],
        pendingEntryOf: async (marker) => pending.get(marker),
        clearOutboxMarker: async (marker) => {
          cleared.push(marker);
        },
      },
      publisher: {
        publish: async (events) => ({ failed: events.filter((event) => event.event_id === refused.event_id) }),
      },
      clock: new ManualClock(),
      metrics: new InMemoryMetrics(),
    });
    const batch: DynamoDBStreamEvent = {
      Records: [
        streamRecord('stream-1', image(ok)),
        streamRecord('stream-2', image(refused)),
        // Delivered again after its event went out: its marker is gone, nothing to do.
        streamRecord('stream-5', image(published)),
        // A head projection or an outbox marker names no marker: nothing to relay.
        streamRecord('stream-3', { pk: { S: notes.key }, sk: { S: `H#${ok.record_id}` } }),
        streamRecord('stream-4', { pk: { S: 'outbox#1' }, sk: { S: `${ok.occurred_at}#${ok.event_id}` } }),
      ],
    };

    // Act
    const response = await relayOutboxStreamHandler(relay)(batch);

    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'stream-2' }] });
    expect(cleared).toEqual([outboxMarkerOf(ok)]);
  });
});

describe('Handler: consumer behind an EventBridge rule', () => {
  it('hands the event detail to its consumer, idempotently', async () => {
    const store = new InMemoryRecordStore({ clock: new ManualClock('2026-06-01T00:00:00.000Z') });
    const revision = revisionOf(scopeOf().namespace(KINDS.note), newRecordId(), 1);
    const event = eventOf(revision);
    await store.append(revision, event);
    const seen: RecordEvent[] = [];
    const handler = consumerHandler({
      name: 'probe',
      consume: async (received) => {
        seen.push(received);
        return seen.length === 1 ? 'applied' : 'ignored';
      },
    });
    const delivery = { detail: event, 'detail-type': event.event_type, source: 'memory-hub' } as EventBridgeEvent<
      string,
      unknown
    >;

    expect(await handler(delivery)).toEqual({ outcome: 'applied' });
    expect(await handler(delivery)).toEqual({ outcome: 'ignored' });
    expect(seen).toEqual([event, event]);
  });

  it('refuses an event that is not a record event (so EventBridge retries, then dead-letters it)', async () => {
    const handler = consumerHandler({ name: 'probe', consume: async () => 'applied' });
    await expect(handler({ detail: { text: 'not an event' } } as EventBridgeEvent<string, unknown>)).rejects.toThrow();
  });
});
