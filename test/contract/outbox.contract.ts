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

      it('leaves no item behind when the marker of a record purged meanwhile is cleared', async () => {
        // Prepare: the relay read the entry, then the retention sweep purged the record before it was cleared.
        const [purged, kept] = [newRecordId(), newRecordId()];
        for (const id of [purged, kept]) await context.append(revisionOf(context.notes, id, 1));
        const [entry] = (await context.storage.outbox.pendingEvents(10)).filter(
          (pending) => pending.event.record_id === purged,
        );
        expect(await context.storage.maintenance.purge(context.notes, purged)).toBe(2);

        // Act
        await context.storage.outbox.clearOutboxMarker(entry?.marker as string);

        // Assess: nothing of the purged record came back, and the walk past it still finds the record after it
        expect(await context.storage.maintenance.purge(context.notes, purged)).toBe(0);
        expect(await context.storage.revisions.getHead(context.notes, purged)).toBeUndefined();
        expect((await context.storage.maintenance.listRecordIds(context.notes, { limit: 10 })).items).toEqual([kept]);
        expect((await context.storage.outbox.pendingEvents(10)).map((pending) => pending.event.record_id)).toEqual([
          kept,
        ]);
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
