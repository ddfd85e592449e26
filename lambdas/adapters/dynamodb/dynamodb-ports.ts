import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { BackendPorts } from '../../core/backend.ts';
import type { ConfigProvider } from '../../core/config/config-provider.port.ts';
import type { ContentCipher } from '../../core/crypto/content-cipher.port.ts';
import type { Metrics } from '../../core/observability/metrics.port.ts';
import type { OutboxEntry } from '../../core/records/record-store.port.ts';
import type { Clock } from '../../core/time/clock.ts';
import { DynamoDbAuditTrail } from './dynamodb-audit-trail.ts';
import { DynamoDbIdempotencyStore } from './dynamodb-idempotency-store.ts';
import { DynamoDbRecordStore } from './dynamodb-record-store.ts';
import { DynamoDbWorkflowRunStore } from './dynamodb-workflow-run-store.ts';

/** The storage ports every backend builds on the memory table, AWS and local alike. */
export const dynamoDbPorts = (options: {
  client: DynamoDBClient;
  tableName: string;
  cipher: ContentCipher;
  clock: Clock;
  metrics: Metrics;
  config: ConfigProvider;
  onCommitted?: (entry: OutboxEntry) => void;
}): Pick<BackendPorts, 'records' | 'directory' | 'idempotency' | 'auditTrail' | 'workflowRuns'> => {
  const { client, tableName, clock, metrics, config } = options;
  const records = new DynamoDbRecordStore(options);
  return {
    records,
    directory: records,
    idempotency: new DynamoDbIdempotencyStore({ client, tableName, clock, metrics }),
    auditTrail: new DynamoDbAuditTrail({
      client,
      tableName,
      clock,
      metrics,
      retentionDays: () => config.current().housekeeping.auditRetentionDays,
    }),
    workflowRuns: new DynamoDbWorkflowRunStore({ client, tableName, clock }),
  };
};
