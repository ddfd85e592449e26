import { DeleteItemCommand, type DynamoDBClient, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { DeadLetter, DeadLetterQueue, ReceivedDeadLetter } from '../../kernel/events/dead-letter-queue.port.ts';
import { RecordEvent } from '../../kernel/events/record-event.schema.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { translateAwsError } from '../aws-service-errors.ts';
import { ttlAttribute } from './memory-table.ts';

const PARTITION = 'dead-letters';
const RETENTION_MS = 14 * 86_400_000;

/**
 * Local mode's dead-letter queue, as items of the memory table (in AWS each rule has an SQS dead-letter
 * queue). Letters hold the content-free event, the consumer and an error class; they expire after 14 days,
 * like an SQS queue's retention.
 */
export class DynamoDbDeadLetterQueue implements DeadLetterQueue {
  readonly #client: DynamoDBClient;
  readonly #table: string;
  readonly #clock: Clock;

  constructor(options: { client: DynamoDBClient; tableName: string; clock: Clock }) {
    this.#client = options.client;
    this.#table = options.tableName;
    this.#clock = options.clock;
  }

  async put(letter: DeadLetter): Promise<void> {
    await this.#send(() =>
      this.#client.send(
        new PutItemCommand({
          TableName: this.#table,
          Item: {
            pk: { S: PARTITION },
            sk: { S: `${letter.consumer}#${letter.event.event_id}` },
            consumer: { S: letter.consumer },
            reason: { S: letter.reason },
            event: { S: JSON.stringify(letter.event) },
            ttl: ttlAttribute(this.#clock.now().getTime() + RETENTION_MS),
          },
        }),
      ),
    );
  }

  async receive(limit: number): Promise<readonly ReceivedDeadLetter[]> {
    const output = await this.#send(() =>
      this.#client.send(
        new QueryCommand({
          TableName: this.#table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: PARTITION } },
          Limit: limit,
          ConsistentRead: true,
        }),
      ),
    );
    return (output.Items ?? []).map((item) => ({
      receipt: item.sk?.S ?? '',
      consumer: item.consumer?.S ?? '',
      reason: item.reason?.S ?? '',
      event: RecordEvent.parse(JSON.parse(item.event?.S ?? 'null')),
    }));
  }

  async remove(receipt: string): Promise<void> {
    await this.#send(() =>
      this.#client.send(
        new DeleteItemCommand({
          TableName: this.#table,
          Key: { pk: { S: PARTITION }, sk: { S: receipt } },
        }),
      ),
    );
  }

  async #send<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw translateAwsError(error);
    }
  }
}
