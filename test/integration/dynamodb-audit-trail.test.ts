import { DynamoDbAuditTrail } from '../../lambdas/adapters/dynamodb/dynamodb-audit-trail.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { describeAuditTrailContract } from '../contract/audit-trail.contract.ts';
import { startEmbeddedTable } from '../support/embedded-table.ts';

describeAuditTrailContract('DynamoDB adapter on the embedded engine', async () => {
  const table = await startEmbeddedTable();
  return {
    trail: new DynamoDbAuditTrail({ table: table.table, clock: new ManualClock(), retentionDays: () => 400 }),
    close: () => table.close(),
  };
});
