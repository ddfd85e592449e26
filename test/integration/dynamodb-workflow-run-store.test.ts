import { DynamoDbWorkflowRunStore } from '../../lambdas/adapters/dynamodb/dynamodb-workflow-run-store.ts';
import { describeWorkflowRunStoreContract } from '../contract/workflow-run-store.contract.ts';
import { startEmbeddedTable } from '../support/embedded-table.ts';

describeWorkflowRunStoreContract('DynamoDB adapter on the embedded engine', async (clock) => {
  const table = await startEmbeddedTable();
  return {
    store: new DynamoDbWorkflowRunStore({ table: table.table, clock }),
    close: () => table.close(),
  };
});
