import { assembleBackend, type Backend } from '../core/backend.ts';
import type { MemoryHubConfig } from '../core/config/memory-hub-config.ts';
import type { Metrics } from '../core/observability/metrics.port.ts';
import { type Clock, systemClock } from '../core/time/clock.ts';
import { createUlidGenerator } from '../core/time/ids.ts';
import { EncryptionSdkCipher } from './crypto/encryption-sdk-cipher.ts';
import { loadOrCreateLocalKey, localKeyring } from './crypto/local-key-file.ts';
import { localDynamoDbClient } from './dynamodb/dynamodb-client.ts';
import { DynamoDbIdempotencyStore } from './dynamodb/dynamodb-idempotency-store.ts';
import { DynamoDbRecordStore } from './dynamodb/dynamodb-record-store.ts';
import { ensureMemoryTable } from './dynamodb/memory-table.ts';
import { InMemoryMetrics } from './observability/in-memory-metrics.ts';

export interface LocalBackendOptions {
  /** The embedded DynamoDB-compatible engine's loopback URL. */
  dynamoDbEndpoint: string;
  tableName: string;
  keyFile: string;
  config: MemoryHubConfig;
  clock?: Clock;
  metrics?: Metrics;
}

/**
 * Local mode: the same DynamoDB adapter against the embedded engine, the same Encryption SDK over a raw
 * AES key from a local file. Creates the table and the key on first use.
 */
export const createLocalBackend = async (options: LocalBackendOptions): Promise<Backend> => {
  const clock = options.clock ?? systemClock;
  const metrics = options.metrics ?? new InMemoryMetrics();
  const client = localDynamoDbClient(options.dynamoDbEndpoint);
  await ensureMemoryTable(client, options.tableName);
  const cipher = new EncryptionSdkCipher({ keys: localKeyring(await loadOrCreateLocalKey(options.keyFile)), metrics });
  return assembleBackend({
    config: options.config,
    metrics,
    clock,
    ids: createUlidGenerator(),
    records: new DynamoDbRecordStore({ client, tableName: options.tableName, cipher, clock, metrics }),
    idempotency: new DynamoDbIdempotencyStore({ client, tableName: options.tableName, clock, metrics }),
  });
};
