import { describe, expect, it } from 'vitest';
import type { RecordEvent } from '../../lambdas/kernel/events/record-event.schema.ts';
import { eventOf, newRecordId, revisionOf } from '../support/revisions.ts';
import { type CreateRecordStorage, recordStorageContext } from './record-storage.fixture.ts';

/** What every Outbox must do (see `record-storage.fixture.ts` for the storages it runs against). */
export const describeOutboxContract = (name: string, create: CreateRecordStorage) => {
  describe(`Contract: Outbox (${name})`, () => {
    const context = recordStorageContext(create);
    describe('Method: pendingEvents, then clearOutboxMarker', () => {
      it('holds each committed revision until its marker is cleared, and clearing twice is harmless', async () => {
        const id = newRecordId();
        const first = revisionOf(context.notes, id, 1);
        const event = eventOf(first);
        await context.storage.revisions.append(first, event);

        const pending = await context.storage.outbox.pendingEvents(10);
        expect(pending.map((entry) => entry.event)).toContainEqual(event);
        expect(JSON.stringify(pending)).not.toContain(`note ${id}`);

        const marker = pending.find((entry) => entry.event.event_id === event.event_id)?.marker as string;
        await context.storage.outbox.clearOutboxMarker(marker);
        await context.storage.outbox.clearOutboxMarker(marker);

        expect((await context.storage.outbox.pendingEvents(10)).map((entry) => entry.event.event_id)).not.toContain(
          event.event_id,
        );
        expect((await context.storage.revisions.getHead(context.notes, id))?.revision).toBe(1);
      });

      it('gives the oldest events first, no more than the limit, and clearing one marker leaves the others pending', async () => {
        // Prepare
        const events: RecordEvent[] = [];
        for (let committed = 0; committed < 3; committed += 1) {
          const at = context.clock.now().toISOString();
          const revision = revisionOf(context.notes, newRecordId(), 1, { createdAt: at, updatedAt: at });
          const event = eventOf(revision);
          await context.storage.revisions.append(revision, event);
          events.push(event);
          context.clock.advance(1_000);
        }
        const [oldest, middle, newest] = events.map((event) => event.event_id);

        // Act
        const firstTwo = await context.storage.outbox.pendingEvents(2);
        await context.storage.outbox.clearOutboxMarker(firstTwo[0]?.marker as string);

        // Assess
        expect(firstTwo.map((entry) => entry.event.event_id)).toEqual([oldest, middle]);
        const left = await context.storage.outbox.pendingEvents(10);
        expect(left.map((entry) => entry.event.event_id)).toEqual([middle, newest]);
      });
    });
  });
};
