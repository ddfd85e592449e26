import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeadLetter, DeadLetterQueue, ReceivedDeadLetter } from '../../kernel/events/dead-letter-queue.port.ts';
import { RecordEvent } from '../../kernel/events/record-event.schema.ts';

/**
 * The SQS dead-letter queue of one consumer's EventBridge rule. EventBridge puts the undeliverable event
 * (its envelope, with our event as `detail`) in the message body; replay reads them back from here.
 */
export class SqsDeadLetterQueue implements DeadLetterQueue {
  readonly #client: Pick<SQSClient, 'send'>;
  readonly #queueUrl: string;
  readonly #consumer: string;

  constructor(options: { client: Pick<SQSClient, 'send'>; queueUrl: string; consumer: string }) {
    this.#client = options.client;
    this.#queueUrl = options.queueUrl;
    this.#consumer = options.consumer;
  }

  async put(letter: DeadLetter): Promise<void> {
    await this.#client.send(
      new SendMessageCommand({
        QueueUrl: this.#queueUrl,
        MessageBody: JSON.stringify({
          source: 'memory-hub',
          'detail-type': letter.event.event_type,
          detail: letter.event,
        }),
        MessageAttributes: { reason: { DataType: 'String', StringValue: letter.reason } },
      }),
    );
  }

  async receive(limit: number): Promise<readonly ReceivedDeadLetter[]> {
    const output = await this.#client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.#queueUrl,
        MaxNumberOfMessages: Math.min(10, Math.max(1, limit)),
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
      }),
    );
    const letters: ReceivedDeadLetter[] = [];
    for (const message of output.Messages ?? []) {
      const envelope = safeJson(message.Body);
      const event = RecordEvent.safeParse((envelope as { detail?: unknown } | undefined)?.detail);
      if (!event.success || !message.ReceiptHandle) continue;
      letters.push({
        receipt: message.ReceiptHandle,
        consumer: this.#consumer,
        event: event.data,
        reason:
          message.MessageAttributes?.ERROR_CODE?.StringValue ??
          message.MessageAttributes?.reason?.StringValue ??
          'unknown',
      });
    }
    return letters;
  }

  async remove(receipt: string): Promise<void> {
    await this.#client.send(new DeleteMessageCommand({ QueueUrl: this.#queueUrl, ReceiptHandle: receipt }));
  }
}

const safeJson = (text: string | undefined): unknown => {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
};
