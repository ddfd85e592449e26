import type { SQSClient } from '@aws-sdk/client-sqs';
import { SqsDeadLetterQueue } from '../../../lambdas/adapters/events/sqs-dead-letter-queue.ts';
import { InMemoryDeadLetterQueue } from '../../../lambdas/adapters/memory/in-memory-dead-letter-queue.ts';
import { CONTRACT_CONSUMER, describeDeadLetterQueueContract } from '../../contract/dead-letter-queue.contract.ts';

/** SQS cannot run here: a minimal stand-in for send/receive/delete, with every message visible until deleted. */
const fakeSqs = (): Pick<SQSClient, 'send'> => {
  const messages = new Map<string, { body: string; attributes: Record<string, { StringValue?: string }> }>();
  let next = 0;
  return {
    send: (async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      const input = command.input;
      switch (command.constructor.name) {
        case 'SendMessageCommand':
          messages.set(`receipt-${++next}`, {
            body: String(input.MessageBody),
            attributes: (input.MessageAttributes ?? {}) as Record<string, { StringValue?: string }>,
          });
          return {};
        case 'ReceiveMessageCommand':
          return {
            Messages: [...messages.entries()]
              .slice(0, Number(input.MaxNumberOfMessages ?? 1))
              .map(([receipt, message]) => ({
                ReceiptHandle: receipt,
                Body: message.body,
                MessageAttributes: message.attributes,
              })),
          };
        case 'DeleteMessageCommand':
          messages.delete(String(input.ReceiptHandle));
          return {};
        default:
          throw new Error(`unexpected ${command.constructor.name}`);
      }
    }) as never,
  };
};

describeDeadLetterQueueContract('in-memory fake', async () => ({
  queue: new InMemoryDeadLetterQueue(),
  close: async () => undefined,
}));

describeDeadLetterQueueContract('SQS adapter on a fake SQS client', async () => ({
  queue: new SqsDeadLetterQueue({
    client: fakeSqs(),
    queueUrl: 'https://sqs.example/queue',
    consumer: CONTRACT_CONSUMER,
  }),
  close: async () => undefined,
}));
