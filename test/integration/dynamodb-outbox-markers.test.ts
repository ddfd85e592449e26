import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  outboxMarkerItemOf,
  outboxMarkerOfImage,
  UNCOMMITTED_MARKER_GRACE_MS,
} from '../../lambdas/adapters/dynamodb/dynamodb-outbox.ts';
import { dynamoDbRecordStorage } from '../../lambdas/adapters/dynamodb/dynamodb-ports.ts';
import { MemoryTableSchema } from '../../lambdas/adapters/dynamodb/memory-table.ts';
import { revisionSortKey } from '../../lambdas/adapters/dynamodb/revision-items.ts';
import { encodeCursor } from '../../lambdas/kernel/records/page-cursor.ts';
import { RevisionConflictError } from '../../lambdas/kernel/records/record.errors.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import { type EmbeddedTable, startEmbeddedTable } from '../support/embedded-table.ts';
import { KINDS } from '../support/record-kinds.ts';
import { eventOf, newRecordId, revisionOf } from '../support/revisions.ts';
import { scopeOf } from '../support/scopes.ts';

/**
 * The DynamoDB outbox keeps a small marker item per unpublished event beside the revisions: put before the
 * revision that commits the event, deleted once it is published. What that store alone must get right: a
 * marker never outlives its event for good, and a marker is never taken for a commit that did not happen.
 */
describe('DynamoDB outbox: marker items', () => {
  let table: EmbeddedTable;
  let clock: ManualClock;
  const notes = scopeOf({ tenant: 'acme', sub: 'alice' }).namespace(KINDS.note);

  beforeEach(async () => {
    table = await startEmbeddedTable();
    clock = new ManualClock('2026-12-01T10:00:00.000Z');
  });
  afterEach(async () => {
    await table.close();
  });

  const storage = () => dynamoDbRecordStorage({ ...table, clock });

  /** Every marker item in the table, over all its shards. */
  const markers = async () => {
    const shards = Array.from({ length: MemoryTableSchema.outboxShards }, (_, shard) => `outbox#${shard}`);
    const pages = await Promise.all(
      shards.map((pk) =>
        table.client.send(
          new QueryCommand({
            TableName: table.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': { S: pk } },
          }),
        ),
      ),
    );
    return pages.flatMap((page) => (page.Items ?? []).map((item) => unmarshall(item)));
  };

  it('puts one marker per commit naming its revision and holding its event, with no content, and deleting it leaves none', async () => {
    // Prepare
    const { revisions, outbox } = storage();
    const revision = revisionOf(notes, newRecordId(), 1, { content: { text: 'secret plan', tags: [] } });
    const event = eventOf(revision);

    // Act
    await revisions.append(revision, event);
    const [marker] = await markers();
    const [pending] = await outbox.pendingEvents(10);
    await outbox.clearOutboxMarker(pending?.marker as string);

    // Assess
    expect(marker).toEqual({
      pk: expect.stringMatching(/^outbox#[0-3]$/),
      sk: `${event.occurred_at}#${event.event_id}`,
      revision: JSON.stringify([notes.key, revisionSortKey(revision.id, 1)]),
      outboxEvent: JSON.stringify(event),
      markedAt: clock.now().toISOString(),
      ttl: Math.ceil(Date.parse(revision.expiresAt as string) / 1000),
    });
    expect(JSON.stringify(marker)).not.toContain('secret plan');
    expect(pending?.event).toEqual(event);
    expect(await markers()).toEqual([]);
  });

  it('gives the relay, from a revision as the stream shows it, the marker it deletes', async () => {
    // Prepare: the stream's new image is the revision item as written
    const { revisions, outbox } = storage();
    const revision = revisionOf(notes, newRecordId(), 1);
    const event = eventOf(revision);
    await revisions.append(revision, event);
    const item = await table.table.get({ pk: notes.key, sk: revisionSortKey(revision.id, 1) });

    // Act
    const marker = outboxMarkerOfImage(marshall(item, { removeUndefinedValues: true })) as string;
    const entry = await outbox.pendingEntryOf(marker);
    await outbox.clearOutboxMarker(marker);

    // Assess: and once deleted, a second delivery of the same stream record finds nothing to publish
    expect(entry?.event).toEqual(event);
    expect(await markers()).toEqual([]);
    expect(await outbox.pendingEvents(10)).toEqual([]);
    expect(await outbox.pendingEntryOf(marker)).toBeUndefined();
  });

  it('keeps who wrote and with which idempotency key off the revision: only the marker, until published, holds the event', async () => {
    // Prepare
    const { revisions } = storage();
    const revision = revisionOf(notes, newRecordId(), 1);
    const event = { ...eventOf(revision), idempotency_key: 'agent-key-7' };

    // Act
    await revisions.append(revision, event);
    const item = await table.table.get({ pk: notes.key, sk: revisionSortKey(revision.id, 1) });

    // Assess
    expect(JSON.stringify(item)).not.toContain('agent-key-7');
    expect(JSON.stringify(item)).not.toContain(event.event_type);
    expect(item?.outboxEvent).toBeUndefined();
    expect(typeof item?.outboxMarker).toBe('string');
  });

  it('reads on past markers it cannot publish yet: a crowd of uncommitted ones never holds back a committed event', async () => {
    // Prepare: 150 writers died between their marker and their revision, then one write committed
    const { revisions, outbox } = storage();
    for (let dead = 0; dead < 150; dead++) {
      const orphan = revisionOf(notes, newRecordId(), 1);
      await table.table.put(
        outboxMarkerItemOf({ pk: notes.key, sk: revisionSortKey(orphan.id, 1) }, eventOf(orphan), clock.now()),
      );
    }
    clock.advance(1_000);
    const committed = revisionOf(notes, newRecordId(), 1, { updatedAt: clock.now().toISOString() });
    const event = eventOf(committed);
    await revisions.append(committed, event);

    // Act: within the orphans' grace
    const pending = await outbox.pendingEvents(10);

    // Assess
    expect(pending.map((entry) => entry.event.event_id)).toEqual([event.event_id]);
  });

  it('offers only events that occurred by the time asked for, reading no revision of younger markers', async () => {
    // Prepare
    const { revisions, outbox } = storage();
    const older = revisionOf(notes, newRecordId(), 1, { updatedAt: '2026-12-01T09:00:00.000Z' });
    const younger = revisionOf(notes, newRecordId(), 1, { updatedAt: '2026-12-01T09:59:30.000Z' });
    for (const revision of [older, younger]) await revisions.append(revision, eventOf(revision));

    // Act
    const due = await outbox.pendingEvents(10, { occurredBefore: new Date('2026-12-01T09:59:00.000Z') });

    // Assess
    expect(due.map((entry) => entry.event.record_id)).toEqual([older.id]);
  });

  it('leaves no marker behind a write that lost to another writer', async () => {
    // Prepare
    const { revisions, outbox } = storage();
    const id = newRecordId();
    const winner = revisionOf(notes, id, 1);
    const loser = revisionOf(notes, id, 1, { content: { text: 'the other writer', tags: [] } });
    const winnerEvent = eventOf(winner);
    await revisions.append(winner, winnerEvent);

    // Act
    const lost = revisions.append(loser, eventOf(loser));

    // Assess
    await expect(lost).rejects.toBeInstanceOf(RevisionConflictError);
    expect((await markers()).map((marker) => marker.sk)).toEqual([
      `${winnerEvent.occurred_at}#${winnerEvent.event_id}`,
    ]);
    expect((await outbox.pendingEvents(10)).map((entry) => entry.event.event_id)).toEqual([winnerEvent.event_id]);
  });

  it('leaves no marker and no revision behind a write that fails before its commit', async () => {
    // Prepare: the write waits on something that then fails (a belief waits on its session event's commit).
    const { revisions } = storage();
    const revision = revisionOf(notes, newRecordId(), 1);
    let failPrerequisite: (error: Error) => void = () => undefined;
    const prerequisite = new Promise((_, reject) => {
      failPrerequisite = reject;
    });

    // Act: the marker is put while the revision is encrypted, before the prerequisite fails.
    const write = revisions.append(revision, eventOf(revision), { after: prerequisite });
    await vi.waitFor(async () => expect(await markers()).toHaveLength(1));
    failPrerequisite(new Error('prerequisite failed'));

    // Assess
    await expect(write).rejects.toThrow('prerequisite failed');
    expect(await markers()).toEqual([]);
    expect(await revisions.getHead(notes, revision.id)).toBeUndefined();
  });

  it('never offers the marker of a commit that did not happen, and drops it once no writer can still make it', async () => {
    // Prepare: a writer put its marker and died before its revision put
    const revision = revisionOf(notes, newRecordId(), 1);
    const event = eventOf(revision);
    // Marked well after the event's time: the grace runs from the marker, not from `occurred_at`
    const markedAt = new Date(Date.parse(event.occurred_at) + 3_600_000);
    await table.table.put(outboxMarkerItemOf({ pk: notes.key, sk: revisionSortKey(revision.id, 1) }, event, markedAt));
    clock = new ManualClock(new Date(markedAt.getTime() + UNCOMMITTED_MARKER_GRACE_MS - 1_000));
    const { outbox } = storage();

    // Act + Assess: within the grace the writer may still commit, so the marker stays, unoffered
    expect(await outbox.pendingEvents(10)).toEqual([]);
    expect(await markers()).toHaveLength(1);

    // Act + Assess: past it, the marker goes
    clock.advance(2_000);
    expect(await outbox.pendingEvents(10)).toEqual([]);
    expect(await markers()).toEqual([]);
  });

  it('drops at once the marker of a revision another write committed, and offers that write’s own', async () => {
    // Prepare: a writer's marker is left over (it died after losing), the winner's revision is there
    const { revisions, outbox } = storage();
    const id = newRecordId();
    const winner = revisionOf(notes, id, 1);
    const winnerEvent = eventOf(winner);
    const stale = eventOf(revisionOf(notes, id, 1));
    await table.table.put(outboxMarkerItemOf({ pk: notes.key, sk: revisionSortKey(id, 1) }, stale, clock.now()));
    await revisions.append(winner, winnerEvent);

    // Act
    const pending = await outbox.pendingEvents(10);

    // Assess
    expect(pending.map((entry) => entry.event)).toEqual([winnerEvent]);
    expect((await markers()).map((marker) => marker.sk)).toEqual([
      `${winnerEvent.occurred_at}#${winnerEvent.event_id}`,
    ]);
  });

  it('expires a marker with its revision', async () => {
    // Prepare
    const { revisions } = storage();
    const revision = revisionOf(notes, newRecordId(), 1, { expiresAt: '2027-01-01T00:00:00.000Z' });

    // Act
    await revisions.append(revision, eventOf(revision));

    // Assess
    const [marker] = await markers();
    expect(marker?.ttl).toBe(Math.ceil(Date.parse('2027-01-01T00:00:00.000Z') / 1000));
  });

  it('refuses to delete anything but a marker', async () => {
    // Prepare: a forged marker naming a revision
    const forged = encodeCursor(JSON.stringify([notes.key, revisionSortKey(newRecordId(), 1)]));

    // Act + Assess
    await expect(storage().outbox.clearOutboxMarker(forged)).rejects.toThrow(TypeError);
  });
});
