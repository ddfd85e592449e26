import { describe, expect, it } from 'vitest';
import { eventOf, newRecordId, revisionOf } from '../support/revisions.ts';
import { type CreateRecordStorage, recordStorageContext } from './record-storage.fixture.ts';

/** What every Outbox must do (see `record-storage.fixture.ts` for the storages it runs against). */
export const describeOutboxContract = (name: string, create: CreateRecordStorage) => {
  describe(`Contract: Outbox (${name})`, () => {
    const context = recordStorageContext(create);
    describe('Outbox', () => {
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
    });
  });
};
