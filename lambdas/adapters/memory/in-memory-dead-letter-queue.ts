import type { DeadLetter, DeadLetterQueue, ReceivedDeadLetter } from '../../kernel/events/dead-letter-queue.port.ts';

/** Test double of the dead-letter queue. */
export class InMemoryDeadLetterQueue implements DeadLetterQueue {
  readonly #letters = new Map<string, DeadLetter>();

  async put(letter: DeadLetter): Promise<void> {
    this.#letters.set(`${letter.consumer}#${letter.event.event_id}`, structuredClone(letter));
  }

  async receive(limit: number): Promise<readonly ReceivedDeadLetter[]> {
    return [...this.#letters.entries()].slice(0, limit).map(([receipt, letter]) => ({ ...letter, receipt }));
  }

  async remove(receipt: string): Promise<void> {
    this.#letters.delete(receipt);
  }
}
