import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeadLetterQueue } from '../../lambdas/kernel/events/dead-letter-queue.port.ts';
import { noteEvent } from '../support/revisions.ts';

export const CONTRACT_CONSUMER = 'audit-trail';

/** What every dead-letter queue does: the in-memory fake, the table-backed local queue, and SQS (behind a fake client). */
export const describeDeadLetterQueueContract = (
  name: string,
  create: () => Promise<{ queue: DeadLetterQueue; close(): Promise<void> }>,
) => {
  describe(`Contract: DeadLetterQueue (${name})`, () => {
    let fixture: { queue: DeadLetterQueue; close(): Promise<void> };
    const letter = () => ({
      consumer: CONTRACT_CONSUMER,
      event: noteEvent(),
      reason: 'ServiceUnavailableError',
    });

    beforeEach(async () => {
      fixture = await create();
    });

    afterEach(async () => {
      await fixture.close();
    });

    it('gives back what was put, with a receipt that removes it', async () => {
      const [first, second] = [letter(), letter()];
      await fixture.queue.put(first);
      await fixture.queue.put(second);

      const received = await fixture.queue.receive(10);
      expect(
        received
          .map(({ receipt: _, ...rest }) => rest)
          .sort((a, b) => a.event.event_id.localeCompare(b.event.event_id)),
      ).toEqual([first, second].sort((a, b) => a.event.event_id.localeCompare(b.event.event_id)));

      await fixture.queue.remove(received[0]?.receipt as string);
      const remaining = await fixture.queue.receive(10);
      expect(remaining.map((entry) => entry.event.event_id)).toEqual([received[1]?.event.event_id]);
    });

    it('receives at most the number asked for', async () => {
      for (let index = 0; index < 4; index++) await fixture.queue.put(letter());
      expect((await fixture.queue.receive(3)).length).toBeLessThanOrEqual(3);
      expect((await fixture.queue.receive(3)).length).toBeGreaterThan(0);
    });
  });
};
