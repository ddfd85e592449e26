import { PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbIdempotencyStore } from '../../lambdas/adapters/dynamodb/dynamodb-idempotency-store.ts';
import { dynamoDbRecordStorage } from '../../lambdas/adapters/dynamodb/dynamodb-ports.ts';
import { systemClock } from '../../lambdas/kernel/time/clock.ts';
import { type EmbeddedTable, startEmbeddedTable } from '../support/embedded-table.ts';
import { assembleBackend, type Backend, inMemoryPorts } from '../support/in-memory-backend.ts';
import { KINDS } from '../support/record-kinds.ts';
import { scopeOf } from '../support/scopes.ts';

describe('Encryption at rest', () => {
  let table: EmbeddedTable;
  let backend: Backend;

  beforeEach(async () => {
    table = await startEmbeddedTable();
    const options = { client: table.client, tableName: table.tableName, clock: systemClock, metrics: table.metrics };
    backend = assembleBackend({
      ...inMemoryPorts().ports,
      metrics: table.metrics,
      clock: systemClock,
      ...dynamoDbRecordStorage({ ...options, cipher: table.cipher }),
      idempotency: new DynamoDbIdempotencyStore({ table: table.table, clock: systemClock }),
    });
  });

  afterEach(async () => {
    await table.close();
  });

  const rawItems = async () => (await table.client.send(new ScanCommand({ TableName: table.tableName }))).Items ?? [];

  it('stores no plaintext of any note, in any attribute of any item', async () => {
    // Prepare
    const alice = scopeOf({ sub: 'alice', groups: ['project:p7:member'] });
    const secrets = ['zebra-marmalade-7781', 'quokka-vinaigrette-1249', 'team-plan-ocelot-5531', 'revised-tapir-0042'];
    const first = await backend.notes.create(alice, {}, { text: secrets[0] as string, tags: ['tag-axolotl'] });
    await backend.notes.create(alice, { agent: 'coder' }, { text: secrets[1] as string, tags: [] });
    await backend.notes.create(
      alice,
      { project: 'p7' },
      { text: secrets[2] as string, tags: [] },
      { key: 'k-1', fingerprint: 'f' },
    );
    await backend.notes.update(alice, {}, first.record.id, [first.record.revision], { text: secrets[3] });

    // Act
    const items = await rawItems();

    // Assess
    expect(items.length).toBeGreaterThanOrEqual(8);
    const dump = items
      .map((item) =>
        Object.values(item)
          .map((value) => value.S ?? (value.B ? Buffer.from(value.B).toString('latin1') : JSON.stringify(value)))
          .join('|'),
      )
      .join('\n');
    for (const secret of [...secrets, 'tag-axolotl']) expect(dump).not.toContain(secret);
    const revisions = items.filter((item) => item.sk?.S?.startsWith('R#') || item.sk?.S?.startsWith('H#'));
    for (const item of revisions) expect(item.payload?.B?.length).toBeGreaterThan(100);
  });

  it('refuses, and counts, a ciphertext copied into another namespace or onto another record', async () => {
    // Prepare
    const alice = scopeOf({ sub: 'alice' });
    const bob = scopeOf({ sub: 'bob' });
    const created = await backend.notes.create(alice, {}, { text: 'only for alice', tags: [] });
    const original = (await rawItems()).find((item) => item.sk?.S === `R#${created.record.id}#0000000001`);
    expect(original).toBeDefined();
    const bobsNotes = bob.namespace(KINDS.note);
    const other = await backend.notes.create(alice, {}, { text: 'another note of alice', tags: [] });

    // Act: the same bytes under bob's namespace, and under alice's other record
    await table.client.send(
      new PutItemCommand({ TableName: table.tableName, Item: { ...original, pk: { S: bobsNotes.key } } }),
    );
    await table.client.send(
      new PutItemCommand({
        TableName: table.tableName,
        Item: {
          ...original,
          recordId: { S: other.record.id },
          revision: { N: '2' },
          sk: { S: `R#${other.record.id}#0000000002` },
        },
      }),
    );

    // Assess
    await expect(backend.notes.get(bob, {}, created.record.id)).rejects.toMatchObject({ code: 'not_found' });
    // A forged head is refused, not opened: the record fails closed rather than showing the copied text.
    await expect(backend.notes.get(alice, {}, other.record.id)).rejects.toMatchObject({ code: 'not_found' });
    expect(table.metrics.countOf('crypto.context_mismatch_refused')).toBe(2);
    expect((await backend.notes.get(alice, {}, created.record.id)).content?.text).toBe('only for alice');
  });
});
