import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../dynamodb/memory-table.ts';

/**
 * The branch key store's item format, as the AWS Encryption SDK's `BranchKeyStoreNode` reads it (AWS
 * Cryptographic Material Providers key store spec, hierarchy version 1). The CDK construct declares the same
 * key schema; a test compares the two.
 *
 * - `branch-key-id` (partition key) names the branch key; `type` (sort key) is `branch:ACTIVE` for the version
 *   in use, `branch:version:{uuid}` for each version (what decryption reads) and `beacon:ACTIVE` for the
 *   beacon key of searchable encryption.
 * - `enc` is the key, encrypted by KMS under the customer-managed key `kms-arn` with the item's other
 *   attributes (and `tablename`, the logical key store name) as encryption context; `version` on the active
 *   item names the version it is; `create-time` and `hierarchy-version` complete it.
 */
export const BranchKeyStoreSchema = {
  partitionKey: 'branch-key-id',
  sortKey: 'type',
  activeType: 'branch:ACTIVE',
  versionTypePrefix: 'branch:version:',
  beaconType: 'beacon:ACTIVE',
  /** Every attribute an item may have: what the functions' roles may write (`dynamodb:Attributes`). */
  attributes: ['branch-key-id', 'type', 'version', 'enc', 'kms-arn', 'create-time', 'hierarchy-version'],
} as const;

/** Creates the key store's table on the local engine if it is not there yet, and returns once it is ACTIVE. */
export const ensureBranchKeyStoreTable = (client: DynamoDBClient, tableName: string): Promise<void> =>
  ensureTable(client, {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: BranchKeyStoreSchema.partitionKey, AttributeType: 'S' },
      { AttributeName: BranchKeyStoreSchema.sortKey, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: BranchKeyStoreSchema.partitionKey, KeyType: 'HASH' },
      { AttributeName: BranchKeyStoreSchema.sortKey, KeyType: 'RANGE' },
    ],
  });
