import type { RecordEvent } from './record-event.schema.ts';

export interface DeadLetter {
  readonly consumer: string;
  readonly event: RecordEvent;
  /** The failing error's class or code: never a message, which may quote data. */
  readonly reason: string;
}

/** A dead letter as received from its queue; `receipt` is what removes it. */
export interface ReceivedDeadLetter extends DeadLetter {
  readonly receipt: string;
}

/** Events a consumer kept failing on, held for a controlled replay. */
export interface DeadLetterQueue {
  put(letter: DeadLetter): Promise<void>;
  receive(limit: number): Promise<readonly ReceivedDeadLetter[]>;
  remove(receipt: string): Promise<void>;
}
