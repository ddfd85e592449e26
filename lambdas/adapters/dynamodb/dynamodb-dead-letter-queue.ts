import type { DeadLetter, DeadLetterQueue, ReceivedDeadLetter } from '../../kernel/events/dead-letter-queue.port.ts';
import { RecordEvent } from '../../kernel/events/record-event.schema.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { ttlEpochSeconds } from './memory-table.ts';
import { type MemoryTableClient, parseJsonAttribute } from './memory-table-client.ts';

const PARTITION = 'dead-letters';
const RETENTION_MS = 14 * 86_400_000;

/**
 * Local mode's dead-letter queue, as items of the memory table (in AWS each rule has an SQS dead-letter
 * queue). Letters hold the content-free event, the consumer and an error class; they expire after 14 days,
 * like an SQS queue's retention.
 */
export class DynamoDbDeadLetterQueue implements DeadLetterQueue {
  readonly #table: MemoryTableClient;
  readonly #clock: Clock;

  constructor(options: { table: MemoryTableClient; clock: Clock }) {
    this.#table = options.table;
    this.#clock = options.clock;
  }

  async put(letter: DeadLetter): Promise<void> {
    await this.#table.put({
      pk: PARTITION,
      sk: `${letter.consumer}#${letter.event.event_id}`,
      consumer: letter.consumer,
      reason: letter.reason,
      event: JSON.stringify(letter.event),
      ttl: ttlEpochSeconds(this.#clock.now().getTime() + RETENTION_MS),
    });
  }

  async receive(limit: number): Promise<readonly ReceivedDeadLetter[]> {
    const { items } = await this.#table.query({ where: 'pk = :pk', values: { ':pk': PARTITION }, limit });
    return items.map((item) => ({
      receipt: String(item.sk ?? ''),
      consumer: String(item.consumer ?? ''),
      reason: String(item.reason ?? ''),
      event: parseJsonAttribute(item.event, RecordEvent),
    }));
  }

  async remove(receipt: string): Promise<void> {
    await this.#table.delete({ pk: PARTITION, sk: receipt });
  }
}
