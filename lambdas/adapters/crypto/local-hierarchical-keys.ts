import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Metrics } from '../../kernel/observability/metrics.port.ts';
import { ensureBranchKeyStoreTable } from './branch-key-store-table.ts';
import { HierarchicalKeys } from './hierarchical-keys.ts';
import { loadOrCreateLocalKey, localKeyring } from './local-key-file.ts';
import { LOCAL_KMS_KEY_ARN, localKmsClientConfig } from './local-kms.ts';

/** The local key store's logical name (AWS names its own per stage). */
export const LOCAL_BRANCH_KEY_STORE_NAME = 'memory-hub-local-branch-keys';

export interface LocalHierarchicalKeysOptions {
  /** The embedded engine's client; the key store's table is created on it if missing. */
  readonly client: DynamoDBClient;
  readonly keyStoreTableName: string;
  /** The local key file (created on first use): it keys the local KMS, and opens what local mode wrote before branch keys. */
  readonly keyFile: string;
  readonly cacheSeconds?: number | undefined;
  readonly metrics: Metrics;
}

/**
 * Local mode's keys: the same hierarchical keyring, key store and branch key creation as in AWS, with the key
 * store's table on the embedded engine and KMS played in process by `LocalKms` over the local key file.
 */
export const localHierarchicalKeys = async (options: LocalHierarchicalKeysOptions): Promise<HierarchicalKeys> => {
  const keyFileBytes = await loadOrCreateLocalKey(options.keyFile);
  await ensureBranchKeyStoreTable(options.client, options.keyStoreTableName);
  return new HierarchicalKeys({
    keyArn: LOCAL_KMS_KEY_ARN,
    keyStore: {
      tableName: options.keyStoreTableName,
      logicalName: LOCAL_BRANCH_KEY_STORE_NAME,
      client: options.client,
    },
    kms: { config: localKmsClientConfig(keyFileBytes) },
    ...(options.cacheSeconds !== undefined && { cacheSeconds: options.cacheSeconds }),
    // Before branch keys, local mode wrapped each record's data key with the key file's bytes directly. The
    // keyring zeroes the buffer it is given once it holds the key, so it gets a copy of its own.
    legacy: () => localKeyring(isolatedCopyOf(keyFileBytes)),
    metrics: options.metrics,
  });
};

/** The SDK takes key bytes only in a buffer of their own (not a slice of Node's shared pool). */
const isolatedCopyOf = (bytes: Uint8Array): Buffer => {
  const copy = Buffer.alloc(bytes.length);
  copy.set(bytes);
  return copy;
};
