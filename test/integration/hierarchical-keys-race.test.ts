import { randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HierarchicalKeys } from '../../lambdas/adapters/crypto/hierarchical-keys.ts';
import { LOCAL_KMS_KEY_ARN, LocalKms, localKmsClientConfig } from '../../lambdas/adapters/crypto/local-kms.ts';
import { contextOf } from '../contract/content-cipher.contract.ts';
import { cipherOver, type KeyStoreEngine, startKeyStoreEngine } from '../support/branch-keys.ts';
import { newRecordId } from '../support/revisions.ts';
import { gate, RecordingMetrics, ScriptedTransport } from '../support/scripted-transport.ts';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

describe('Method: createMissingKey, a scope’s first writes in two processes', () => {
  let store: KeyStoreEngine;
  const keyFileBytes = randomBytes(32);

  beforeAll(async () => {
    store = await startKeyStoreEngine();
  });

  afterAll(async () => {
    await store?.close();
  });

  const processOver = (keyStoreTableName: string) => {
    const dynamoDb = new ScriptedTransport(store.engine.requestHandler);
    const keys = new HierarchicalKeys({
      keyArn: LOCAL_KMS_KEY_ARN,
      keyStore: {
        tableName: keyStoreTableName,
        logicalName: 'scripted-branch-keys',
        client: new DynamoDBClient({
          endpoint: store.engine.endpoint,
          region: 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
          requestHandler: dynamoDb,
          maxAttempts: 1,
        }),
      },
      kms: { config: { ...localKmsClientConfig(keyFileBytes), requestHandler: new LocalKms(keyFileBytes) } },
      metrics: new RecordingMetrics(),
    });
    return { keys, cipher: cipherOver(keys), dynamoDb };
  };

  it('writes under the key another process created between its first attempt and its check for the key', async () => {
    // Prepare: both processes have read the naming key; erin's branch key does not exist yet
    const keyStoreTableName = await store.newTable();
    const [one, other] = [processOver(keyStoreTableName), processOver(keyStoreTableName)];
    const erin = { tenant: 'acme', owner: 'principal', principal: 'erin' } as const;
    await one.keys.keyIdOf(erin);
    await other.keys.keyIdOf(erin);
    // The other's check whether erin's key exists (BranchKeyCreator.exists: the read projecting `type`) arrives
    // late: after its first attempt found no key, and after the first process made it.
    const late = gate();
    other.dynamoDb.play((request) =>
      request.operation === 'GetItem' && request.input.ProjectionExpression ? { hold: late.hold() } : undefined,
    );
    const context = contextOf('acme', 'erin');
    const writing = other.cipher.encrypt(bytes('from the other'), { ...context, recordId: newRecordId() });
    await late.arrived;
    other.dynamoDb.play(() => undefined);
    await one.cipher.encrypt(bytes('from the one'), context);

    // Act
    late.release();

    // Assess: the key is there, so the write should go ahead under it
    await expect(writing).resolves.toBeInstanceOf(Uint8Array);
  });
});
