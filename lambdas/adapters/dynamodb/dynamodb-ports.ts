import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ConfigProvider } from '../../kernel/config/config-provider.port.ts';
import { kernelHousekeeping } from '../../kernel/config/kernel-config.ts';
import type { ContentCipher } from '../../kernel/crypto/content-cipher.port.ts';
import type { OutboxEntry } from '../../kernel/events/outbox.port.ts';
import type { KernelPorts } from '../../kernel/kernel.ts';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';
import type { Clock } from '../../kernel/time/clock.ts';
import { DynamoDbAuditTrail } from './dynamodb-audit-trail.ts';
import { DynamoDbHeadProjection } from './dynamodb-head-projection.ts';
import { DynamoDbIdempotencyStore } from './dynamodb-idempotency-store.ts';
import { DynamoDbNamespaceDirectory } from './dynamodb-namespace-directory.ts';
import { DynamoDbOutbox } from './dynamodb-outbox.ts';
import { DynamoDbRecordMaintenance } from './dynamodb-record-maintenance.ts';
import { DynamoDbRevisionStore } from './dynamodb-revision-store.ts';
import { DynamoDbSearchIndexStore } from './dynamodb-search-index-store.ts';
import { DynamoDbWorkflowRunStore } from './dynamodb-workflow-run-store.ts';
import { MemoryTableClient } from './memory-table-client.ts';
import { RevisionItems } from './revision-items.ts';

/** What the storage ports are built with, whichever way they reach the memory table. */
interface StorageOptions {
  /** Required: content is encrypted before it reaches the table, or nothing is stored. */
  cipher: ContentCipher;
  clock: Clock;
  metrics: Metrics;
  /** Told of each committed outbox entry (local mode's stand-in for the table stream). */
  onCommitted?: ((entry: OutboxEntry) => void) | undefined;
}

export interface DynamoDbRecordStorageOptions extends StorageOptions {
  client: DynamoDBClient;
  tableName: string;
}

export interface DynamoDbPortsOptions extends StorageOptions {
  /** The memory table as the process's other adapters reach it too (the quota ledger, local mode's dead letters). */
  table: MemoryTableClient;
  config: ConfigProvider;
  /**
   * The cipher of the search index's log and snapshots: one without a plaintext cache (an index is held decoded
   * by the search index itself, and a snapshot can be megabytes). @default cipher
   */
  indexCipher?: ContentCipher;
}

type RecordStoragePorts = Pick<KernelPorts, 'revisions' | 'heads' | 'outbox' | 'directory' | 'maintenance'>;

/** The record ports on the memory table: revisions, heads, outbox, directory and maintenance, sharing one table. */
export const dynamoDbRecordStorage = (options: DynamoDbRecordStorageOptions): RecordStoragePorts =>
  recordStorageOn(new MemoryTableClient(options), options);

/** Every storage port of the kernel on the memory table, AWS and local alike. */
export const dynamoDbPorts = (
  options: DynamoDbPortsOptions,
): Pick<
  KernelPorts,
  | 'revisions'
  | 'heads'
  | 'outbox'
  | 'directory'
  | 'maintenance'
  | 'idempotency'
  | 'auditTrail'
  | 'workflowRuns'
  | 'searchIndexStore'
> => {
  const { table } = options;
  return {
    ...recordStorageOn(table, options),
    idempotency: new DynamoDbIdempotencyStore({ table, clock: options.clock, metrics: options.metrics }),
    auditTrail: new DynamoDbAuditTrail({
      table,
      clock: options.clock,
      retentionDays: () => kernelHousekeeping.of(options.config.current()).auditRetentionDays,
    }),
    workflowRuns: new DynamoDbWorkflowRunStore({ table, clock: options.clock }),
    searchIndexStore: new DynamoDbSearchIndexStore({
      table,
      cipher: options.indexCipher ?? options.cipher,
    }),
  };
};

const recordStorageOn = (table: MemoryTableClient, options: StorageOptions): RecordStoragePorts => {
  const items = new RevisionItems({ table, cipher: options.cipher, metrics: options.metrics, clock: options.clock });
  const directory = new DynamoDbNamespaceDirectory(table);
  const heads = new DynamoDbHeadProjection({ table, items });
  return {
    revisions: new DynamoDbRevisionStore({
      table,
      items,
      directory,
      heads,
      metrics: options.metrics,
      clock: options.clock,
      onCommitted: options.onCommitted,
    }),
    heads,
    outbox: new DynamoDbOutbox(table, options.clock),
    directory,
    maintenance: new DynamoDbRecordMaintenance({ table, items, heads }),
  };
};
