import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SDK_CONTEXT_KEYS } from '../../lambdas/adapters/crypto/encryption-sdk-cipher.ts';
import {
  CONTENT_CONTEXT_KEY_PREFIX,
  CONTENT_CONTEXT_TENANT_KEY,
  EncryptionKey,
  type EncryptionKeyProps,
} from '../../lib/constructs/encryption-key.ts';
import {
  apiFunctionOf,
  bareStack,
  buildFixtureApp,
  FIXTURE_ENTRIES,
  type SynthesizedApp,
  synthesizeApp,
} from './support/fixture-app.ts';
import { logicalIdOf, type PolicyStatement, statementsOf } from './support/template-queries.ts';

/** A tenant's own key, as `-c encryptionKeyArn=…` names it. */
const TENANT_KEY_ARN = 'arn:aws:kms:eu-west-1:444455556666:key/1234abcd-12ab-34cd-56ef-1234567890ab';

/** What the account's IAM policies may do with a created key: the key policy's one statement. */
const IAM_DELEGATION = {
  Effect: 'Allow',
  Principal: {
    AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']] },
  },
  Action: 'kms:*',
  Resource: '*',
};

/** DynamoDB opening the table key on the caller's behalf, in the stack's own region and partition. */
const THROUGH_DYNAMODB = {
  StringEquals: {
    'kms:ViaService': { 'Fn::Join': ['', ['dynamodb.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]] },
  },
};

/** Data keys of record content: only with Memory Hub's encryption context, which always names the tenant. */
const CONTENT_CONTEXT = {
  'ForAllValues:StringLike': { 'kms:EncryptionContextKeys': 'memory-hub:*' },
  'ForAnyValue:StringEquals': { 'kms:EncryptionContextKeys': 'memory-hub:tenant' },
};

/** DynamoDB's use of the table key (`grantTableUse`): every function with storage access has it. */
const tableUse = (keyArn: unknown): PolicyStatement => ({
  Effect: 'Allow',
  Action: ['kms:Decrypt', 'kms:DescribeKey'],
  Resource: keyArn,
  Condition: THROUGH_DYNAMODB,
});

/** A content-handling function's KMS statements (the key store's aside), reading or writing alike. */
const contentFunctionStatements = (keyArn: unknown): PolicyStatement[] => [
  tableUse(keyArn),
  { Effect: 'Allow', Action: ['kms:Decrypt'], Resource: keyArn, Condition: CONTENT_CONTEXT },
];

/**
 * The branch key store's own KMS grants (branch-key-store.test.ts): its calls only, each on the condition that
 * the encryption context names the key store (`tablename`), creation's ReEncrypt among them.
 */
const namesKeyStore = (statement: PolicyStatement): boolean =>
  JSON.stringify(statement.Condition ?? {}).includes('kms:EncryptionContext:tablename');

/** A role's statements that allow KMS actions (the key store's aside), each with its actions sorted. */
function kmsStatementsOf(synthesized: SynthesizedApp, role: IConstruct): PolicyStatement[] {
  return statementsOf(synthesized.template, role)
    .filter((statement) => [statement.Action].flat().some((action) => action.startsWith('kms:')))
    .filter((statement) => !namesKeyStore(statement))
    .map((statement) => ({ ...statement, Action: [statement.Action].flat().sort() }));
}

describe('Construct: EncryptionKey', () => {
  let synthesized: SynthesizedApp;

  beforeAll(() => {
    // Prepare & Act
    synthesized = synthesizeApp({ stage: 'test' });
  });
  afterAll(() => synthesized.dispose());

  it('creates one symmetric customer-managed key with yearly rotation, retained on stack deletion', () => {
    // Assess
    synthesized.template.resourceCountIs('AWS::KMS::Key', 1);
    synthesized.template.hasResource('AWS::KMS::Key', {
      Properties: Match.objectLike({
        EnableKeyRotation: true,
        KeySpec: 'SYMMETRIC_DEFAULT',
        KeyUsage: 'ENCRYPT_DECRYPT',
      }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('names the key alias/memory-hub/{stage}', () => {
    // Assess
    synthesized.template.hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/memory-hub/test' });
  });

  it('keeps rotation on whatever key props it is given', () => {
    // Prepare
    const stack = bareStack();

    // Act
    new EncryptionKey(stack, 'EncryptionKey', {
      stage: 'qa',
      keyProps: { enableKeyRotation: false } as unknown as EncryptionKeyProps['keyProps'],
    });

    // Assess
    Template.fromStack(stack).hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    Template.fromStack(stack).hasResourceProperties('AWS::KMS::Alias', { AliasName: 'alias/memory-hub/qa' });
  });

  describe('Method: key policy', () => {
    it('grants nothing beyond delegating to the account’s IAM policies, where every grant is made', () => {
      // Prepare
      const [key] = Object.values(synthesized.template.findResources('AWS::KMS::Key'));

      // Assess
      expect(key?.Properties.KeyPolicy.Statement).toEqual([IAM_DELEGATION]);
    });
  });

  describe('Method: grants to the functions', () => {
    const keyArn = () => ({ 'Fn::GetAtt': [logicalIdOf(synthesized.stack.encryptionKey.key), 'Arn'] });

    it('lets a function that reads decrypt, through DynamoDB for the table and under the content context', () => {
      // Prepare
      const serviceFunction = apiFunctionOf(synthesized, FIXTURE_ENTRIES.things, 'listThings');

      // Assess
      expect(kmsStatementsOf(synthesized, serviceFunction.role)).toEqual(
        expect.arrayContaining(contentFunctionStatements(keyArn())),
      );
      expect(kmsStatementsOf(synthesized, serviceFunction.role)).toHaveLength(2);
    });

    it('lets a function that writes open old content data keys and make none: content is written under branch keys', () => {
      // Prepare
      const serviceFunction = apiFunctionOf(synthesized, FIXTURE_ENTRIES.things, 'createThing');

      // Assess
      expect(kmsStatementsOf(synthesized, serviceFunction.role)).toEqual(
        expect.arrayContaining(contentFunctionStatements(keyArn())),
      );
      expect(kmsStatementsOf(synthesized, serviceFunction.role)).toHaveLength(2);
    });

    it('conditions content keys on the encryption context the cipher writes', () => {
      // Assess: a cipher whose context left the prefix, or named the tenant otherwise, would be refused by KMS
      expect(SDK_CONTEXT_KEYS.tenant).toBe(CONTENT_CONTEXT_TENANT_KEY);
      for (const key of Object.values(SDK_CONTEXT_KEYS))
        expect(key.startsWith(CONTENT_CONTEXT_KEY_PREFIX), key).toBe(true);
    });

    it('grants no role kms:Encrypt, kms:ReEncrypt* or a wildcard, and every KMS action on a condition', () => {
      // Prepare: every statement of every policy in the template
      const statements = Object.values(synthesized.template.findResources('AWS::IAM::Policy')).flatMap(
        (policy) => policy.Properties.PolicyDocument.Statement as PolicyStatement[],
      );
      const kms = statements
        .filter((statement) => [statement.Action].flat().some((action) => action.startsWith('kms:')))
        .filter((statement) => !namesKeyStore(statement));
      const relayStreamRead = statementsOf(synthesized.template, synthesized.stack.outboxRelay.relay.role).filter(
        (statement) => [statement.Action].flat().includes('dynamodb:GetRecords'),
      );

      // Assess
      expect(kms.length).toBeGreaterThan(0);
      for (const statement of kms) {
        for (const action of [statement.Action].flat()) {
          expect(['kms:Encrypt', 'kms:ReEncryptFrom', 'kms:ReEncryptTo']).not.toContain(action);
          expect(action).not.toContain('*');
        }
        // The one exception: the relay reading the table's stream (see OutboxRelay), on this key only.
        if (statement.Condition === undefined)
          expect([statement.Action].flat().sort()).toEqual(['kms:Decrypt', 'kms:DescribeKey']);
      }
      expect(kms.filter((statement) => statement.Condition === undefined)).toHaveLength(relayStreamRead.length);
    });

    it('gives the relay and the sweep no content data keys: they move events, never content', () => {
      // Prepare
      const { relay, sweep } = synthesized.stack.outboxRelay;

      // Assess
      for (const serviceFunction of [relay, sweep]) {
        const statements = kmsStatementsOf(synthesized, serviceFunction.role);
        expect(statements.filter((statement) => statement.Condition !== undefined)).toEqual([tableUse(keyArn())]);
      }
    });
  });
});

describe('Construct: EncryptionKey, with the tenant’s own key (residency)', () => {
  let synthesized: SynthesizedApp;

  beforeAll(() => {
    // Prepare & Act
    synthesized = synthesizeApp({ stage: 'test', appOptions: { encryptionKeyArn: TENANT_KEY_ARN } });
  });
  afterAll(() => synthesized.dispose());

  it('creates no key and no alias', () => {
    // Assess
    synthesized.template.resourceCountIs('AWS::KMS::Key', 0);
    synthesized.template.resourceCountIs('AWS::KMS::Alias', 0);
    expect(synthesized.stack.encryptionKey.alias).toBeUndefined();
  });

  it('encrypts the table with it and tells every function its ARN, nothing above the adapters changing', () => {
    // Assess
    synthesized.template.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: TENANT_KEY_ARN },
    });
    const functions = Object.values(synthesized.template.findResources('AWS::Lambda::Function')).filter(
      (resource) => resource.Properties.Environment?.Variables?.MEMORY_HUB_TABLE_NAME !== undefined,
    );
    expect(functions.length).toBeGreaterThan(0);
    for (const resource of functions)
      expect(resource.Properties.Environment.Variables.MEMORY_HUB_KEY_ARN).toBe(TENANT_KEY_ARN);
  });

  it('grants the same conditioned actions on that key, in the functions’ own IAM policies', () => {
    // Prepare
    const serviceFunction = apiFunctionOf(synthesized, FIXTURE_ENTRIES.things, 'createThing');

    // Assess
    expect(kmsStatementsOf(synthesized, serviceFunction.role)).toEqual(contentFunctionStatements(TENANT_KEY_ARN));
  });

  it('refuses to deploy the environment-agnostic template in a region other than the key’s', () => {
    // Assess
    expect(synthesized.template.toJSON().Rules).toMatchObject({
      [Object.keys(synthesized.template.toJSON().Rules ?? {}).find((id) => id.includes('KeyRegion')) ?? 'missing']: {
        Assertions: [{ Assert: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'eu-west-1'] } }],
      },
    });
  });

  it('outputs the key’s ARN', () => {
    // Assess
    synthesized.template.hasOutput('KeyArn', { Value: TENANT_KEY_ARN });
  });

  it('is named by context too (`-c encryptionKeyArn=…`)', () => {
    // Act
    const { stack } = buildFixtureApp({ context: { encryptionKeyArn: TENANT_KEY_ARN }, stage: 'ctx' });

    // Assess
    expect(stack.encryptionKey.key.keyArn).toBe(TENANT_KEY_ARN);
  });

  it('refuses what is not the ARN of a key: an alias, another service, garbage', () => {
    // Act & Assess
    for (const arn of [
      'arn:aws:kms:eu-west-1:444455556666:alias/memory-hub',
      'arn:aws:s3:::bucket',
      'alias/memory-hub/prod',
      '1234abcd-12ab-34cd-56ef-1234567890ab',
    ]) {
      expect(() => new EncryptionKey(bareStack(), 'EncryptionKey', { stage: 'qa', existingKeyArn: arn }), arn).toThrow(
        /is not the ARN of a KMS key/,
      );
    }
  });

  it('refuses a key in another region than the one the stack is pinned to', () => {
    // Act & Assess
    expect(() => buildFixtureApp({ env: { region: 'eu-central-1' }, encryptionKeyArn: TENANT_KEY_ARN })).toThrow(
      /the key is in eu-west-1, the stack in eu-central-1/,
    );
  });
});
