import type { DeadLetter, DeadLetterQueue } from '../../core/events/dead-letter-queue.port.ts';

/** Test double of the dead-letter queue. */
export class InMemoryDeadLetterQueue implements DeadLetterQueue {
  readonly #letters = new Map<string, DeadLetter>();

  async put(letter: DeadLetter): Promise<void> {
    this.#letters.set(`${letter.consumer}#${letter.event.event_id}`, structuredClone(letter));
  }

  async list(limit: number): Promise<readonly DeadLetter[]> {
    return [...this.#letters.values()].slice(0, limit);
  }

  async remove(letter: DeadLetter): Promise<void> {
    this.#letters.delete(`${letter.consumer}#${letter.event.event_id}`);
  }
}
