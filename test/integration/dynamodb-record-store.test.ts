import { DynamoDbRecordStore } from '../../lambdas/adapters/dynamodb/dynamodb-record-store.ts';
import { describeRecordStoreContract } from '../contract/record-store.contract.ts';
import { startEmbeddedTable } from '../support/embedded-table.ts';

describeRecordStoreContract('DynamoDB adapter on the embedded engine', async (clock) => {
  const table = await startEmbeddedTable();
  return {
    store: new DynamoDbRecordStore({
      client: table.client,
      tableName: table.tableName,
      cipher: table.cipher,
      clock,
      metrics: table.metrics,
    }),
    close: () => table.close(),
  };
});
