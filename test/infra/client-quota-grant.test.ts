import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_QUOTA_ITEMS as LEDGER_ITEMS } from '../../lambdas/adapters/dynamodb/dynamodb-client-quota-ledger.ts';
import { DEFAULT_CONFIG } from '../../lambdas/app/service-tables.ts';
import { DEFAULT_THROTTLE } from '../../lib/constructs/http-api.ts';
import { CLIENT_QUOTA_ITEMS } from '../../lib/constructs/memory-table.ts';
import { apiFunctionOf, FIXTURE_ENTRIES, type SynthesizedApp, synthesizeApp } from './support/fixture-app.ts';
import { type PolicyStatement, statementsOf as statementsOfRole } from './support/template-queries.ts';

const { things: THINGS_ENTRY, system: SYSTEM_ENTRY } = FIXTURE_ENTRIES;

describe('Function: grantClientQuotaLeases', () => {
  let synthesized: SynthesizedApp;
  let tableLogicalId: string;

  const statementsOf = (entry: string, handler: string): PolicyStatement[] =>
    statementsOfRole(synthesized.template, apiFunctionOf(synthesized, entry, handler).role);
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
