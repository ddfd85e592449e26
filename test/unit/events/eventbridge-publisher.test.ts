import type { PutEventsCommand, PutEventsCommandOutput } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import { EventBridgePublisher } from '../../../lambdas/adapters/events/eventbridge-publisher.ts';
import { KINDS } from '../../support/record-kinds.ts';
import { eventOf, newRecordId, revisionOf } from '../../support/revisions.ts';
import { scopeOf } from '../../support/scopes.ts';

const events = (count: number) =>
  Array.from({ length: count }, () => eventOf(revisionOf(scopeOf().namespace(KINDS.note), newRecordId(), 1)));

/** A stand-in for EventBridge (which cannot run here) that refuses chosen entries, as PutEvents can. */
const fakeEventBridge = (refuse: (detail: { event_id: string }, call: number) => boolean) => {
  const calls: { event_id: string }[][] = [];
  const client = {
    send: async (command: PutEventsCommand): Promise<PutEventsCommandOutput> => {
      const entries = command.input.Entries ?? [];
      const details = entries.map((entry) => JSON.parse(entry.Detail ?? '{}') as { event_id: string });
      calls.push(details);
      const results = details.map((detail) =>
        refuse(detail, calls.length) ? { ErrorCode: 'InternalFailure', ErrorMessage: 'try again' } : { EventId: 'x' },
      );
      return {
        FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length,
        Entries: results,
        $metadata: {},
      };
    },
  };
  return { client, calls };
};

describe('Class: EventBridgePublisher', () => {
  it('sends at most ten entries per PutEvents call, on the named bus, with the event type as detail type', async () => {
    const { client, calls } = fakeEventBridge(() => false);
    const published = events(23);
    let lastInput: PutEventsCommand['input'] | undefined;
    const recording = {
      send: async (command: PutEventsCommand) => {
        lastInput = command.input;
        return client.send(command);
      },
    };

    const outcome = await new EventBridgePublisher({ client: recording as never, busName: 'memory-hub-dev' }).publish(
      published,
    );

    expect(outcome.failed).toEqual([]);
    expect(calls.map((call) => call.length)).toEqual([10, 10, 3]);
    expect(lastInput?.Entries?.[0]).toMatchObject({
      EventBusName: 'memory-hub-dev',
      Source: 'memory-hub',
      DetailType: 'record.created',
    });
  });

  it('re-sends only the entries that failed', async () => {
    const published = events(5);
    const flaky = new Set([published[1]?.event_id, published[3]?.event_id]);
    const { client, calls } = fakeEventBridge((detail, call) => call === 1 && flaky.has(detail.event_id));

    const outcome = await new EventBridgePublisher({ client: client as never, busName: 'bus' }).publish(published);

    expect(outcome.failed).toEqual([]);
    expect(calls[1]?.map((detail) => detail.event_id)).toEqual([published[1]?.event_id, published[3]?.event_id]);
  });

  it('reports entries that keep failing, so their outbox markers stay', async () => {
    const published = events(3);
    const stuck = published[2]?.event_id;
    const { client, calls } = fakeEventBridge((detail) => detail.event_id === stuck);

    const outcome = await new EventBridgePublisher({ client: client as never, busName: 'bus', attempts: 3 }).publish(
      published,
    );

    expect(outcome.failed.map((event) => event.event_id)).toEqual([stuck]);
    expect(calls).toHaveLength(3);
  });
});
