import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EncryptionSdkCipher } from '../../lambdas/adapters/crypto/encryption-sdk-cipher.ts';
import { localDynamoDbClient } from '../../lambdas/adapters/dynamodb/dynamodb-client.ts';
import { ensureMemoryTable } from '../../lambdas/adapters/dynamodb/memory-table.ts';
import { MemoryTableClient } from '../../lambdas/adapters/dynamodb/memory-table-client.ts';
import { InMemoryMetrics } from '../../lambdas/adapters/observability/in-memory-metrics.ts';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../lambdas/local/embedded-dynamodb.ts';
import { localKeyCipher } from './local-key-cipher.ts';

/** The embedded engine with a fresh memory table and a real Encryption SDK cipher over a throwaway key. */
export interface EmbeddedTable {
  engine: EmbeddedDynamoDb;
  client: DynamoDBClient;
  tableName: string;
  /** The same table as the adapters reach it. */
  table: MemoryTableClient;
  cipher: EncryptionSdkCipher;
  metrics: InMemoryMetrics;
  close(): Promise<void>;
}

let tableCounter = 0;

/** Over the engine's in-process channel (as the local server) unless `transport` asks for loopback HTTP. */
export const startEmbeddedTable = async (transport: 'channel' | 'http' = 'channel'): Promise<EmbeddedTable> => {
  const engine = await startEmbeddedDynamoDb();
  const client = localDynamoDbClient(transport === 'channel' ? engine : { endpoint: engine.endpoint });
  const tableName = `memory-test-${++tableCounter}`;
  await ensureMemoryTable(client, tableName);
  const keyDir = await mkdtemp(join(tmpdir(), 'memory-hub-key-'));
  const metrics = new InMemoryMetrics();
  const cipher = await localKeyCipher(keyDir, 'content-key.bin');
  return {
    engine,
    client,
    tableName,
    table: new MemoryTableClient({ client, tableName, metrics }),
    cipher,
    metrics,
    close: async () => {
      client.destroy();
      await engine.close();
      await rm(keyDir, { recursive: true, force: true });
    },
  };
};
