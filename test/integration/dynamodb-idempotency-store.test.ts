import { DynamoDbIdempotencyStore } from '../../lambdas/adapters/dynamodb/dynamodb-idempotency-store.ts';
import { describeIdempotencyStoreContract } from '../contract/idempotency-store.contract.ts';
import { startEmbeddedTable } from '../support/embedded-table.ts';

describeIdempotencyStoreContract('DynamoDB adapter on the embedded engine', async (clock) => {
  const table = await startEmbeddedTable();
  return {
    store: new DynamoDbIdempotencyStore({ table: table.table, clock }),
    close: () => table.close(),
  };
});
