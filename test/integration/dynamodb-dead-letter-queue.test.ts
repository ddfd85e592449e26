import { DynamoDbDeadLetterQueue } from '../../lambdas/adapters/dynamodb/dynamodb-dead-letter-queue.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { describeDeadLetterQueueContract } from '../contract/dead-letter-queue.contract.ts';
import { startEmbeddedTable } from '../support/embedded-table.ts';

describeDeadLetterQueueContract('local queue in the table, on the embedded engine', async () => {
  const table = await startEmbeddedTable();
  return {
    queue: new DynamoDbDeadLetterQueue({ table: table.table, clock: new ManualClock() }),
    close: () => table.close(),
  };
});
