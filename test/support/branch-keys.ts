import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ensureBranchKeyStoreTable } from '../../lambdas/adapters/crypto/branch-key-store-table.ts';
import { EncryptionSdkCipher } from '../../lambdas/adapters/crypto/encryption-sdk-cipher.ts';
import { HierarchicalKeys, perRecordKmsKeyring } from '../../lambdas/adapters/crypto/hierarchical-keys.ts';
import { localHierarchicalKeys } from '../../lambdas/adapters/crypto/local-hierarchical-keys.ts';
import { localDynamoDbClient } from '../../lambdas/adapters/dynamodb/dynamodb-client.ts';
import { InMemoryMetrics } from '../../lambdas/adapters/observability/in-memory-metrics.ts';
import { type EmbeddedDynamoDb, startEmbeddedDynamoDb } from '../../lambdas/local/embedded-dynamodb.ts';
import type { KmsStandIn } from './kms-stand-in.ts';

/** The embedded engine, holding key store tables for the tests that need branch keys. */
export interface KeyStoreEngine {
  readonly engine: EmbeddedDynamoDb;
  readonly client: DynamoDBClient;
  /** A fresh, empty key store table on the engine: another deployment's key store. */
  newTable(): Promise<string>;
  /** Every item of a key store table, as the key store reads them. */
  items(tableName: string): Promise<Record<string, unknown>[]>;
  /** A folder for key files, removed on close. */
  readonly folder: string;
  close(): Promise<void>;
}

let tables = 0;

/** Over the engine's in-process channel (as local mode) unless `transport` asks for loopback HTTP. */
export const startKeyStoreEngine = async (transport: 'channel' | 'http' = 'channel'): Promise<KeyStoreEngine> => {
  const engine = await startEmbeddedDynamoDb();
  const client = localDynamoDbClient(transport === 'channel' ? engine : { endpoint: engine.endpoint });
  const folder = await mkdtemp(join(tmpdir(), 'memory-hub-branch-keys-'));
  return {
    engine,
    client,
    folder,
    newTable: async () => {
      const tableName = `branch-keys-test-${++tables}`;
      await ensureBranchKeyStoreTable(client, tableName);
      return tableName;
    },
    items: async (tableName) =>
      ((await client.send(new ScanCommand({ TableName: tableName }))).Items ?? []).map((item) => unmarshall(item)),
    close: async () => {
      client.destroy();
      await engine.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
};

/** Local mode's keys (its production composition): the local KMS over the key file `keyFile` in the engine's folder. */
export const localModeKeys = async (
  store: KeyStoreEngine,
  options: { keyStoreTableName: string; keyFile: string; cacheSeconds?: number; metrics?: InMemoryMetrics },
) =>
  localHierarchicalKeys({
    client: store.client,
    keyStoreTableName: options.keyStoreTableName,
    keyFile: join(store.folder, options.keyFile),
    cacheSeconds: options.cacheSeconds,
    metrics: options.metrics ?? new InMemoryMetrics(),
  });

/** A real KMS client's configuration pointed at the stand-in; one attempt, so a refused call fails at once. */
export const kmsConfigOf = (standIn: KmsStandIn) => ({
  endpoint: standIn.url,
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  maxAttempts: 1,
});

/** The keys exactly as `aws-application.ts` builds them, with the stand-in as KMS and the engine as DynamoDB. */
export const awsModeKeys = (
  store: KeyStoreEngine,
  options: {
    standIn: KmsStandIn;
    keyArn: string;
    keyStoreTableName: string;
    cacheSeconds?: number;
    metrics?: InMemoryMetrics;
  },
) =>
  new HierarchicalKeys({
    keyArn: options.keyArn,
    keyStore: {
      tableName: options.keyStoreTableName,
      logicalName: `${options.keyStoreTableName}-logical`,
      client: store.client,
    },
    kms: { config: kmsConfigOf(options.standIn) },
    ...(options.cacheSeconds !== undefined && { cacheSeconds: options.cacheSeconds }),
    legacy: perRecordKmsKeyring,
    metrics: options.metrics ?? new InMemoryMetrics(),
  });

export const cipherOver = (keys: HierarchicalKeys) => new EncryptionSdkCipher({ keys });
