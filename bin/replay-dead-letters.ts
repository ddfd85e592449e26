/**
 * `npm run replay`: re-drives dead-lettered events, then reconciles projections, and prints what it did.
 *
 * - Locally (default): the dead letters kept in the data folder ($MEMORY_HUB_DATA_DIR, default .memory-hub/)
 *   go back to the consumer that gave up on them. Stop `npm start` first: one process owns the data folder.
 * - In AWS: `npm run replay -- --queue-url URL --consumer NAME --bus NAME` moves the messages of one rule's
 *   SQS dead-letter queue back onto the event bus (credentials and region from the usual AWS environment).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { localConfigProvider } from '../lambdas/adapters/config/file-config-provider.ts';
import { EventBridgePublisher } from '../lambdas/adapters/events/eventbridge-publisher.ts';
import { SqsDeadLetterQueue } from '../lambdas/adapters/events/sqs-dead-letter-queue.ts';
import { SERVICE_CONFIGURATION } from '../lambdas/app/service-tables.ts';
import { replayDeadLetters } from '../lambdas/kernel/events/dead-letter-replay.ts';
import { startLocalServer } from '../lambdas/local/local-server.ts';

const { values } = parseArgs({
  options: { 'queue-url': { type: 'string' }, consumer: { type: 'string' }, bus: { type: 'string' } },
  strict: true,
});

try {
  if (values['queue-url']) {
    if (!values.consumer || !values.bus) throw new Error('--queue-url needs --consumer and --bus');
    const publisher = new EventBridgePublisher({ client: new EventBridgeClient({}), busName: values.bus });
    const queue = new SqsDeadLetterQueue({
      client: new SQSClient({}),
      queueUrl: values['queue-url'],
      consumer: values.consumer,
    });
    const report = await replayDeadLetters(
      queue,
      async (event) => (await publisher.publish([event])).failed.length === 0,
    );
    console.log(JSON.stringify({ mode: 'aws', ...report }));
  } else {
    const server = await startLocalServer({
      dataDir: resolve(process.env.MEMORY_HUB_DATA_DIR ?? '.memory-hub'),
      config: await localConfigProvider(process.env.MEMORY_HUB_CONFIG, { configuration: SERVICE_CONFIGURATION }),
    });
    try {
      const { bus, deadLetters } = server.backend.local;
      const replay = await replayDeadLetters(deadLetters, (event, consumer) => bus.deliver(event, consumer));
      const reconcile = await server.backend.system.reconciler.run();
      console.log(JSON.stringify({ mode: 'local', deadLetters: replay, reconcile }));
    } finally {
      await server.close();
    }
  }
} catch (error) {
  console.error(`replay: ${(error as Error).message}`);
  process.exit(1);
}
