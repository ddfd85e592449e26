import type { DeadLetterQueue } from './dead-letter-queue.port.ts';
import type { RecordEvent } from './record-event.schema.ts';

export interface ReplayReport {
  readonly replayed: number;
  readonly stillFailing: number;
}

/**
 * Re-drives dead letters: each is delivered again (to the consumer that gave up on it, or to the bus) and
 * leaves its queue only once delivered. Consumers are idempotent, so a letter replayed twice has one effect.
 */
export const replayDeadLetters = async (
  queue: DeadLetterQueue,
  deliver: (event: RecordEvent, consumer: string) => Promise<boolean>,
  options: { batchSize?: number; maxBatches?: number } = {},
): Promise<ReplayReport> => {
  const { batchSize = 10, maxBatches = 1000 } = options;
  let replayed = 0;
  let stillFailing = 0;
  const attempted = new Set<string>();
  for (let batch = 0; batch < maxBatches; batch++) {
    const letters = (await queue.receive(batchSize)).filter(
      (letter) => !attempted.has(`${letter.consumer}#${letter.event.event_id}`),
    );
    if (letters.length === 0) break;
    for (const letter of letters) {
      attempted.add(`${letter.consumer}#${letter.event.event_id}`);
      if (await deliver(letter.event, letter.consumer)) {
        await queue.remove(letter.receipt);
        replayed += 1;
      } else {
        stillFailing += 1;
      }
    }
  }
  return { replayed, stillFailing };
};
