import type { CfnElement } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_QUOTA_ITEMS as LEDGER_ITEMS } from '../../lambdas/adapters/dynamodb/dynamodb-client-quota-ledger.ts';
import { DEFAULT_CONFIG } from '../../lambdas/app/service-tables.ts';
import { DEFAULT_THROTTLE } from '../../lib/constructs/http-api.ts';
import { CLIENT_QUOTA_ITEMS } from '../../lib/constructs/memory-table.ts';
import type { ServiceFunction } from '../../lib/constructs/service-function.ts';
import { type SynthesizedApp, synthesizeApp } from './support/fixture-app.ts';

interface PolicyStatement {
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

const THINGS_ENTRY = 'test/infra/fixtures/handlers/things.lambda.ts';
const SYSTEM_ENTRY = 'test/infra/fixtures/handlers/system.lambda.ts';

describe('Function: grantClientQuotaLeases', () => {
  let synthesized: SynthesizedApp;
  let tableLogicalId: string;

  const statementsOf = (entry: string, handler: string): PolicyStatement[] => {
    const serviceFunction: ServiceFunction | undefined = synthesized.stack.apiFunctions.functions.get(
      `${entry}#${handler}`,
    );
    if (serviceFunction === undefined) throw new Error(`no function for ${entry}#${handler}`);
    const roleLogicalId = synthesized.stack.getLogicalId(serviceFunction.role.node.defaultChild as CfnElement);
    const policies = synthesized.template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: Match.arrayWith([{ Ref: roleLogicalId }]) },
    });
    return Object.values(policies).flatMap((policy) => policy.Properties.PolicyDocument.Statement as PolicyStatement[]);
  };
  const updating = (statements: PolicyStatement[]) =>
    statements.filter((statement) => [statement.Action].flat().includes('dynamodb:UpdateItem'));

  beforeAll(() => {
    // Prepare & Act
    synthesized = synthesizeApp();
    const tables = synthesized.template.findResources('AWS::DynamoDB::Table', {
      Properties: { KeySchema: Match.arrayWith([{ AttributeName: 'pk', KeyType: 'HASH' }]) },
    });
    tableLogicalId = Object.keys(tables)[0] ?? 'missing';
  });
  afterAll(() => synthesized.dispose());

  it('lets a read function update the quota items alone: their partition key prefix and their attributes', () => {
    // Prepare
    const statements = updating(statementsOf(THINGS_ENTRY, 'getThing'));

    // Assess: the one statement, on the memory table itself, never its indexes or another table
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: 'dynamodb:UpdateItem',
        Resource: { 'Fn::GetAtt': [tableLogicalId, 'Arn'] },
        Condition: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['client-quota#*'] },
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'leased', 'ttl'] },
        },
      },
    ]);
  });

  it('gives a write function no second statement: its table grant already updates', () => {
    // Prepare
    const statements = updating(statementsOf(THINGS_ENTRY, 'createThing'));

    // Assess
    expect(statements).toHaveLength(1);
    expect(statements[0]?.Condition).toBeUndefined();
  });

  it('gives a function without storage access no quota grant (its operations are unauthenticated)', () => {
    // Assess
    expect(updating(statementsOf(SYSTEM_ENTRY, 'getHealth'))).toEqual([]);
  });

  it('names the same prefix and attributes the DynamoDB ledger writes', () => {
    // Assess
    expect(CLIENT_QUOTA_ITEMS.partitionKeyPrefix).toBe(LEDGER_ITEMS.partitionKeyPrefix);
    expect([...CLIENT_QUOTA_ITEMS.attributes].sort()).toEqual([...LEDGER_ITEMS.attributes].sort());
  });
});

describe('Defaults: per-client bound and stage throttle', () => {
  it('keep one client to at most half the stage, so no single client can take all of it', () => {
    // Assess
    expect(DEFAULT_CONFIG.throttle.requestsPerSecond * 2).toBeLessThanOrEqual(DEFAULT_THROTTLE.rateLimit);
  });
});
