import {
  getLocalCryptographicMaterialsCache,
  KmsKeyringNode,
  NodeCachingMaterialsManager,
} from '@aws-crypto/client-node';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { assembleBackend, type Backend } from '../core/backend.ts';
import { DEFAULT_CONFIG, type MemoryHubConfig } from '../core/config/memory-hub-config.ts';
import { systemClock } from '../core/time/clock.ts';
import { createUlidGenerator } from '../core/time/ids.ts';
import { EncryptionSdkCipher } from './crypto/encryption-sdk-cipher.ts';
import { DynamoDbIdempotencyStore } from './dynamodb/dynamodb-idempotency-store.ts';
import { DynamoDbRecordStore } from './dynamodb/dynamodb-record-store.ts';
import { EmfMetrics } from './observability/emf-metrics.ts';

/** What a Lambda function is told by its environment; parsed once at init, failing fast when incomplete. */
export const AwsEnvironment = z.object({
  MEMORY_HUB_STAGE: z.string().regex(/^[a-z0-9-]{1,32}$/),
  MEMORY_HUB_TABLE_NAME: z.string().min(3),
  MEMORY_HUB_KEY_ARN: z.string().startsWith('arn:'),
});
export type AwsEnvironment = z.infer<typeof AwsEnvironment>;

/**
 * AWS mode: DynamoDB, and the Encryption SDK over a KMS keyring on the tenant's customer-managed key. A
 * small materials cache lets a warm function re-read the same record without another KMS call.
 */
export const createAwsBackend = (environment: AwsEnvironment, config: MemoryHubConfig = DEFAULT_CONFIG): Backend => {
  const metrics = new EmfMetrics({ namespace: 'MemoryHub', stage: environment.MEMORY_HUB_STAGE });
  const client = new DynamoDBClient({ maxAttempts: 3 });
  const keys = new NodeCachingMaterialsManager({
    backingMaterials: new KmsKeyringNode({ generatorKeyId: environment.MEMORY_HUB_KEY_ARN }),
    cache: getLocalCryptographicMaterialsCache(1000),
    maxAge: 5 * 60 * 1000,
    maxMessagesEncrypted: 1,
  });
  const cipher = new EncryptionSdkCipher({ keys, metrics });
  const clock = systemClock;
  const tableName = environment.MEMORY_HUB_TABLE_NAME;
  return assembleBackend({
    config,
    metrics,
    clock,
    ids: createUlidGenerator(),
    records: new DynamoDbRecordStore({ client, tableName, cipher, clock, metrics }),
    idempotency: new DynamoDbIdempotencyStore({ client, tableName, clock, metrics }),
  });
};
