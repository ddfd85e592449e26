import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Key } from 'aws-cdk-lib/aws-kms';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BranchKeyStoreSchema } from '../../lambdas/adapters/crypto/branch-key-store-table.ts';
import { BRANCH_KEY_CACHE_SECONDS } from '../../lambdas/adapters/crypto/hierarchical-keys.ts';
import {
  BRANCH_KEY_CACHE_TTL_SECONDS,
  BRANCH_KEY_STORE_SCHEMA,
  BranchKeyStore,
} from '../../lib/constructs/branch-key-store.ts';
import type { ServiceFunction } from '../../lib/constructs/service-function.ts';
import {
  apiFunctionOf,
  bareStack,
  FIXTURE_ENTRIES,
  type SynthesizedApp,
  synthesizeApp,
} from './support/fixture-app.ts';
import { actionsOf, logicalIdOf, statementsAllowing } from './support/template-queries.ts';

const { things: THINGS_ENTRY, system: SYSTEM_ENTRY } = FIXTURE_ENTRIES;

describe('Construct: BranchKeyStore', () => {
  let synthesized: SynthesizedApp;
  let tableLogicalId: string;
  let keyLogicalId: string;

  const functionFor = (entry: string, handler: string): ServiceFunction => apiFunctionOf(synthesized, entry, handler);
  const environmentOf = (serviceFunction: ServiceFunction): Record<string, unknown> =>
    synthesized.template.toJSON().Resources[logicalIdOf(serviceFunction.function)].Properties.Environment.Variables;

  beforeAll(() => {
    // Prepare & Act
    synthesized = synthesizeApp({ stage: 'test' });
    tableLogicalId = logicalIdOf(synthesized.stack.branchKeyStore.table);
    keyLogicalId = logicalIdOf(synthesized.stack.encryptionKey.key);
  });
  afterAll(() => synthesized.dispose());

  it('keeps branch keys in a table of the key store’s own schema, which the runtime’s creator writes', () => {
    // Assess
    synthesized.template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'branch-key-id', KeyType: 'HASH' },
        { AttributeName: 'type', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'branch-key-id', AttributeType: 'S' },
        { AttributeName: 'type', AttributeType: 'S' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    });
    expect(BRANCH_KEY_STORE_SCHEMA.partitionKey).toBe(BranchKeyStoreSchema.partitionKey);
    expect(BRANCH_KEY_STORE_SCHEMA.sortKey).toBe(BranchKeyStoreSchema.sortKey);
    expect([...BRANCH_KEY_STORE_SCHEMA.attributes].sort()).toEqual([...BranchKeyStoreSchema.attributes].sort());
  });

  it('is encrypted with the customer-managed key, recoverable to any point, protected from deletion and retained', () => {
    // Assess
    const table = synthesized.template.toJSON().Resources[tableLogicalId];
    expect(table).toMatchObject({
      Properties: {
        SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: { 'Fn::GetAtt': [keyLogicalId, 'Arn'] } },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('tells every function with storage access its table and logical name, and the others nothing', () => {
    // Prepare
    const getThing = environmentOf(functionFor(THINGS_ENTRY, 'getThing'));
    const getHealth = environmentOf(functionFor(SYSTEM_ENTRY, 'getHealth'));

    // Assess
    expect(getThing).toMatchObject({
      MEMORY_HUB_BRANCH_KEY_TABLE_NAME: { Ref: tableLogicalId },
      MEMORY_HUB_BRANCH_KEY_STORE_NAME: 'memory-hub-test-branch-keys',
    });
    expect(getThing).not.toHaveProperty('MEMORY_HUB_BRANCH_KEY_CACHE_SECONDS');
    expect(getHealth).not.toHaveProperty('MEMORY_HUB_BRANCH_KEY_TABLE_NAME');
  });

  it('lets a writing function read and create branch keys: conditional puts of key store attributes, KMS on the key store’s context only', () => {
    // Prepare
    const role = functionFor(THINGS_ENTRY, 'createThing').role;
    const onKeyStore = { StringEquals: { 'kms:EncryptionContext:tablename': 'memory-hub-test-branch-keys' } };

    // Assess
    expect(statementsAllowing(synthesized.template, role, 'dynamodb:PutItem')).toContainEqual(
      expect.objectContaining({
        Resource: { 'Fn::GetAtt': [tableLogicalId, 'Arn'] },
        Condition: {
          'ForAllValues:StringEquals': {
            'dynamodb:Attributes': [
              'branch-key-id',
              'type',
              'version',
              'enc',
              'kms-arn',
              'create-time',
              'hierarchy-version',
            ],
          },
        },
      }),
    );
    for (const action of ['kms:GenerateDataKeyWithoutPlaintext', 'kms:ReEncryptFrom', 'kms:ReEncryptTo']) {
      expect(statementsAllowing(synthesized.template, role, action)).toEqual([
        expect.objectContaining({ Resource: { 'Fn::GetAtt': [keyLogicalId, 'Arn'] }, Condition: onKeyStore }),
      ]);
    }
    expect(statementsAllowing(synthesized.template, role, 'kms:Decrypt')).toContainEqual(
      expect.objectContaining({ Condition: onKeyStore }),
    );
  });

  it('lets a reading function only read and unwrap branch keys', () => {
    // Prepare
    const role = functionFor(THINGS_ENTRY, 'getThing').role;
    const keyStoreStatements = statementsAllowing(synthesized.template, role, 'dynamodb:GetItem').filter((statement) =>
      JSON.stringify(statement.Resource).includes(tableLogicalId),
    );

    // Assess
    expect(keyStoreStatements).toHaveLength(1);
    expect(actionsOf(synthesized.template, role)).not.toContain('kms:GenerateDataKeyWithoutPlaintext');
    expect(actionsOf(synthesized.template, role).filter((action) => action.startsWith('kms:ReEncrypt'))).toEqual([]);
    expect(
      statementsAllowing(synthesized.template, role, 'dynamodb:PutItem').filter((statement) =>
        JSON.stringify(statement.Resource).includes(tableLogicalId),
      ),
    ).toEqual([]);
  });

  it('gives the outbox relay, which moves no content, nothing of the key store', () => {
    // Prepare
    const role = synthesized.stack.outboxRelay.relay.role;

    // Assess
    expect(JSON.stringify(statementsAllowing(synthesized.template, role, 'dynamodb:GetItem'))).not.toContain(
      tableLogicalId,
    );
    expect(actionsOf(synthesized.template, role)).not.toContain('kms:GenerateDataKeyWithoutPlaintext');
  });

  it('passes a chosen cache period on, and refuses one the runtime would not accept', () => {
    // Prepare
    const stack = bareStack();
    const encryptionKey = new Key(stack, 'Key');

    // Act
    const store = new BranchKeyStore(stack, 'Store', { stage: 'qa', encryptionKey, cacheTtl: Duration.minutes(10) });

    // Assess
    expect(store.environment()).toMatchObject({
      MEMORY_HUB_BRANCH_KEY_STORE_NAME: 'memory-hub-qa-branch-keys',
      MEMORY_HUB_BRANCH_KEY_CACHE_SECONDS: '600',
    });
    Template.fromStack(stack).hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: Match.arrayWith([{ AttributeName: 'branch-key-id', KeyType: 'HASH' }]),
    });
    expect(BRANCH_KEY_CACHE_TTL_SECONDS).toEqual({
      min: BRANCH_KEY_CACHE_SECONDS.min,
      max: BRANCH_KEY_CACHE_SECONDS.max,
    });
    for (const cacheTtl of [Duration.hours(2), Duration.millis(1500), Duration.seconds(0)]) {
      const other = bareStack();
      expect(
        () => new BranchKeyStore(other, 'Store', { stage: 'qa', encryptionKey: new Key(other, 'Key'), cacheTtl }),
      ).toThrow(/cacheTtl must be whole seconds from 1 s to 1 h/);
    }
  });
});
