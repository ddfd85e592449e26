import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryTableInput, MemoryTableSchema } from '../../lambdas/adapters/dynamodb/memory-table.ts';
import { type SynthesizedApp, synthesizeApp } from './support/fixture-app.ts';

describe('Construct: MemoryTable', () => {
  let synthesized: SynthesizedApp;
  let keyLogicalId: string;

  beforeAll(() => {
    // Prepare & Act
    synthesized = synthesizeApp();
    const [logicalId] = Object.keys(synthesized.template.findResources('AWS::KMS::Key'));
    keyLogicalId = logicalId ?? 'missing';
  });
  afterAll(() => synthesized.dispose());

  it('has the pk/sk string key schema the record store is written against', () => {
    // Assess
    // The memory table, and the branch key store's table beside it (branch-key-store.test.ts).
    synthesized.template.resourceCountIs('AWS::DynamoDB::Table', 2);
    synthesized.template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ]),
      BillingMode: 'PAY_PER_REQUEST',
    });
  });

  it('is encrypted with the customer-managed key', () => {
    // Assess
    synthesized.template.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: { 'Fn::GetAtt': [keyLogicalId, 'Arn'] } },
    });
  });

  it('has point-in-time recovery and deletion protection, and is retained on stack deletion', () => {
    // Assess
    synthesized.template.hasResource('AWS::DynamoDB::Table', {
      Properties: Match.objectLike({
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
      }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('expires items by the ttl attribute and streams new images', () => {
    // Assess
    synthesized.template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
    });
  });

  it('has no secondary index: the keys alone, every read by partition', () => {
    // Assess
    const [table] = Object.values(
      synthesized.template.findResources('AWS::DynamoDB::Table', {
        Properties: { StreamSpecification: { StreamViewType: 'NEW_IMAGE' } },
      }),
    ) as { Properties: Record<string, unknown> }[];
    expect(table?.Properties.GlobalSecondaryIndexes).toBeUndefined();
    expect(table?.Properties.LocalSecondaryIndexes).toBeUndefined();
    expect(table?.Properties.AttributeDefinitions).toEqual([
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
    ]);
  });
});

describe('Construct: MemoryTable ↔ the DynamoDB adapter', () => {
  let synthesized: SynthesizedApp;

  beforeAll(() => {
    synthesized = synthesizeApp();
  });
  afterAll(() => synthesized.dispose());

  it('declares the same keys, index and TTL attribute as the table the local engine is given', () => {
    // Prepare: the table local mode creates, from the adapter's own schema
    const local = createMemoryTableInput('any');
    const sortedDefinitions = (definitions: { AttributeName?: string }[] = []) =>
      [...definitions].sort((a, b) => String(a.AttributeName).localeCompare(String(b.AttributeName)));

    // Act
    const [table] = Object.values(synthesized.template.findResources('AWS::DynamoDB::Table')) as {
      Properties: {
        KeySchema: unknown;
        AttributeDefinitions: { AttributeName: string }[];
        GlobalSecondaryIndexes: unknown;
        TimeToLiveSpecification: { AttributeName: string; Enabled: boolean };
      };
    }[];

    // Assess
    expect(table?.Properties.KeySchema).toEqual(local.KeySchema);
    expect(sortedDefinitions(table?.Properties.AttributeDefinitions)).toEqual(
      sortedDefinitions(local.AttributeDefinitions),
    );
    expect(table?.Properties.GlobalSecondaryIndexes).toEqual(local.GlobalSecondaryIndexes);
    expect(table?.Properties.TimeToLiveSpecification).toEqual({
      AttributeName: MemoryTableSchema.timeToLiveAttribute,
      Enabled: true,
    });
  });
});
