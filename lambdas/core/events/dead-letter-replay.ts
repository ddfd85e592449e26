import type { DeadLetterQueue } from './dead-letter-queue.port.ts';
import type { RecordEvent } from './record-event.schema.ts';

export interface ReplayReport {
  readonly replayed: number;
  readonly stillFailing: number;
}

/**
 * Re-drives dead letters to the consumer that gave up on them; a letter leaves the queue only once that
 * consumer has taken it. Consumers are idempotent, so a letter replayed twice has one effect.
 */
export const replayDeadLetters = async (
  deadLetters: DeadLetterQueue,
  deliver: (event: RecordEvent, consumer: string) => Promise<boolean>,
  batchSize = 100,
): Promise<ReplayReport> => {
  let replayed = 0;
  let stillFailing = 0;
  const seen = new Set<string>();
  for (;;) {
    const letters = (await deadLetters.list(batchSize)).filter(
      (letter) => !seen.has(`${letter.consumer}#${letter.event.event_id}`),
    );
    if (letters.length === 0) break;
    for (const letter of letters) {
      seen.add(`${letter.consumer}#${letter.event.event_id}`);
      await deadLetters.remove(letter);
      if (await deliver(letter.event, letter.consumer)) replayed += 1;
      else stillFailing += 1;
    }
  }
  return { replayed, stillFailing };
};
