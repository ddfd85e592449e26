import type { RecordEvent } from './record-event.schema.ts';

export interface DeadLetter {
  readonly consumer: string;
  readonly event: RecordEvent;
  /** The failing error's class or code: never a message, which may quote data. */
  readonly reason: string;
}

/** Events a consumer kept failing on, held for a controlled replay. */
export interface DeadLetterQueue {
  put(letter: DeadLetter): Promise<void>;
  list(limit: number): Promise<readonly DeadLetter[]>;
  remove(letter: DeadLetter): Promise<void>;
}
