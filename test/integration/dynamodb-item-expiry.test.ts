import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbAuditTrail } from '../../lambdas/adapters/dynamodb/dynamodb-audit-trail.ts';
import { DynamoDbDeadLetterQueue } from '../../lambdas/adapters/dynamodb/dynamodb-dead-letter-queue.ts';
import { DynamoDbIdempotencyStore } from '../../lambdas/adapters/dynamodb/dynamodb-idempotency-store.ts';
import { dynamoDbRecordStorage } from '../../lambdas/adapters/dynamodb/dynamodb-ports.ts';
import { DynamoDbWorkflowRunStore } from '../../lambdas/adapters/dynamodb/dynamodb-workflow-run-store.ts';
import { IDEMPOTENCY } from '../../lambdas/kernel/idempotency/idempotency-store.port.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { type EmbeddedTable, startEmbeddedTable } from '../support/embedded-table.ts';
import { KINDS } from '../support/record-kinds.ts';
import { eventOf, newRecordId, revisionOf } from '../support/revisions.ts';
import { scopeOf } from '../support/scopes.ts';

const DAY_MS = 86_400_000;
const NOW = '2026-06-01T00:00:00.000Z';
const epochSecondsOf = (iso: string, plusMs = 0) => String(Math.ceil((Date.parse(iso) + plusMs) / 1000));

/**
 * DynamoDB's time to live acts only on a Number attribute and ignores any other type without a word, so the
 * `ttl` of every kind of item the adapters write is read back here as the engine stores it.
 */
describe('DynamoDB adapters: item expiry', () => {
  let table: EmbeddedTable;
  let items: Record<string, unknown>[];
  const clock = new ManualClock(NOW);
  const namespace = scopeOf({ tenant: 'acme', sub: 'alice' }).namespace(KINDS.note);
  const revision = revisionOf(namespace, newRecordId(), 1, { expiresAt: '2027-01-01T00:00:00.000Z' });

  beforeAll(async () => {
    table = await startEmbeddedTable();
    await dynamoDbRecordStorage({ ...table, clock }).revisions.append(revision, eventOf(revision));
    await new DynamoDbIdempotencyStore({ table: table.table, clock }).claim(
      scopeOf({ tenant: 'acme', sub: 'alice' }).namespace(IDEMPOTENCY),
      'key-1',
      { fingerprint: 'f', recordId: revision.id, expiresAt: '2026-06-02T00:00:00.000Z' },
    );
    await new DynamoDbAuditTrail({ table: table.table, clock, retentionDays: () => 400 }).append('acme', {
      id: 'audit-1',
      occurredAt: NOW,
      actor: { principal: 'alice', client: 'app' },
      action: 'record.created',
      recordKind: 'note',
      recordId: revision.id,
      revision: 1,
      decision: 'committed',
      reasonCode: 'revision.created',
    });
    await new DynamoDbWorkflowRunStore({ table: table.table, clock }).save({
      id: newRecordId(),
      workflow: 'belief-synthesis',
      tenant: 'acme',
      trigger: 'admin',
      status: 'running',
      startedAt: NOW,
      steps: [{ name: 'collect', attempts: 1, status: 'running' }],
    });
    await new DynamoDbDeadLetterQueue({ table: table.table, clock }).put({
      consumer: 'audit-trail',
      event: eventOf(revision),
      reason: 'ServiceUnavailableError',
    });
    const scanned = await table.client.send(new ScanCommand({ TableName: table.tableName }));
    items = (scanned.Items ?? []) as Record<string, unknown>[];
  });

  afterAll(async () => {
    await table?.close();
  });

  /** The `ttl` of the items whose partition and sort keys match, as the engine stores it. */
  const ttlOf = (pk: RegExp, sk: RegExp = /./) =>
    items
      .filter((item) => pk.test((item.pk as { S: string }).S) && sk.test((item.sk as { S: string }).S))
      .map((item) => item.ttl);

  it('stores the ttl of revisions and heads as a Number, at the record’s expiry', () => {
    const expected = [{ N: epochSecondsOf(revision.expiresAt) }];
    expect(ttlOf(/^t\/acme\/p\/alice\/note$/, /^R#/)).toEqual(expected);
    expect(ttlOf(/^t\/acme\/p\/alice\/note$/, /^H#/)).toEqual(expected);
  });

  it('stores the ttl of idempotency claims, audit entries, workflow runs and dead letters as a Number', () => {
    expect(ttlOf(/\/idempotency$/)).toEqual([{ N: epochSecondsOf('2026-06-02T00:00:00.000Z') }]);
    expect(ttlOf(/^audit#acme$/)).toEqual([{ N: epochSecondsOf(NOW, 400 * DAY_MS) }]);
    expect(ttlOf(/^workflow-runs#acme$/)).toEqual([{ N: epochSecondsOf(NOW, 90 * DAY_MS) }]);
    expect(ttlOf(/^dead-letters$/)).toEqual([{ N: epochSecondsOf(NOW, 14 * DAY_MS) }]);
  });

  it('leaves only the namespace directory’s entries without an expiry', () => {
    expect(items.filter((item) => item.ttl === undefined).map((item) => (item.pk as { S: string }).S)).toEqual([
      'directory',
    ]);
  });
});
