import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ConfigProvider } from '../../kernel/config/config-provider.port.ts';
import { kernelHousekeeping } from '../../kernel/config/kernel-config.ts';
import type { ContentCipher } from '../../kernel/crypto/content-cipher.port.ts';
import type { KernelPorts } from '../../kernel/kernel.ts';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';
import type { OutboxEntry } from '../../kernel/records/record-store.port.ts';
import type { Clock } from '../../kernel/time/clock.ts';
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
}): Pick<KernelPorts, 'store' | 'directory' | 'idempotency' | 'auditTrail' | 'workflowRuns'> => {
  const { client, tableName, clock, metrics, config } = options;
  const records = new DynamoDbRecordStore(options);
  return {
    store: records,
    directory: records,
    idempotency: new DynamoDbIdempotencyStore({ client, tableName, clock, metrics }),
    auditTrail: new DynamoDbAuditTrail({
      client,
      tableName,
      clock,
      metrics,
      retentionDays: () => kernelHousekeeping.of(config.current()).auditRetentionDays,
    }),
    workflowRuns: new DynamoDbWorkflowRunStore({ client, tableName, clock }),
  };
};
