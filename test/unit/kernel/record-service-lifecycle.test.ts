import { beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { InMemoryIdempotencyStore } from '../../../lambdas/adapters/memory/in-memory-idempotency-store.ts';
import { InMemoryRecordStore } from '../../../lambdas/adapters/memory/in-memory-record-store.ts';
import { NotFoundError, ServiceUnavailableError } from '../../../lambdas/kernel/errors/domain-error.ts';
import {
  ExpectedRevisionRequiredError,
  RecordNotCommittedError,
  RevisionConflictError,
  RevisionMismatchError,
} from '../../../lambdas/kernel/records/record.errors.ts';
import { RecordService, type RecordView } from '../../../lambdas/kernel/records/record-service.ts';
import { RevisionWriter } from '../../../lambdas/kernel/records/revision-writer.ts';
import { ManualClock } from '../../../lambdas/kernel/time/clock.ts';
import { createUlidGenerator, type IdGenerator } from '../../../lambdas/kernel/time/ids.ts';
import { KINDS } from '../../support/record-kinds.ts';
import { eventOf, revisionOf } from '../../support/revisions.ts';
import { scopeOf } from '../../support/scopes.ts';

const Content = z.object({ text: z.string() }).strict();
type Content = z.infer<typeof Content>;

/** A kernel RecordService over the in-memory fakes, with no capability around it. */
const recordService = (options: { ids?: IdGenerator; idPattern?: RegExp } = {}) => {
  const clock = new ManualClock('2026-06-01T00:00:00.000Z');
  const store = new InMemoryRecordStore({ clock });
  const ids = options.ids ?? createUlidGenerator();
  const deps = {
    revisions: store,
    heads: store,
    writer: new RevisionWriter({ revisions: store, ids, clock, backoff: async () => undefined }),
    idempotency: new InMemoryIdempotencyStore({ clock }),
    clock,
    ids,
    idempotencyKeyHours: () => 24,
  };
  const service = new RecordService<Content>(deps, {
    kind: KINDS.note,
    content: Content,
    horizonDays: () => 30,
    ...(options.idPattern && { idPattern: options.idPattern }),
  });
  return { service, store, deps, clock };
};

const alice = scopeOf({ sub: 'alice', client: 'coder-app' });
const notes = alice.namespace(KINDS.note);
const GUARDRAIL_ID = /^[a-z][a-z.]{0,63}$/;

/** The outbox events' types, oldest first: what the relay will publish for the writes made so far. */
const eventTypes = async (store: InMemoryRecordStore) =>
  (await store.pendingEvents(100)).map((entry) => entry.event.event_type);

describe('Class: RecordService', () => {
  let fixture: ReturnType<typeof recordService>;

  beforeEach(() => {
    fixture = recordService();
  });

  describe('Method: createWith', () => {
    it('hands the dependent work the record being written and a promise of its commit', async () => {
      // Prepare
      const seen: { record: RecordView<Content>; committed: boolean }[] = [];
      let runs = 0;

      // Act
      const created = await fixture.service.createWith(
        alice,
        {},
        { text: 'taught' },
        undefined,
        async (record, committed) => {
          runs += 1;
          await committed;
          seen.push({ record, committed: (await fixture.store.getHead(notes, record.id)) !== undefined });
          return 'learned';
        },
      );

      // Assess
      expect(created).toMatchObject({ replayed: false, dependent: 'learned', record: { content: { text: 'taught' } } });
      expect(seen).toEqual([{ record: created.record, committed: true }]);
      expect(runs).toBe(1);
    });

    it('runs the dependent work on the record as first committed when an Idempotency-Key replays', async () => {
      const idempotency = { key: 'k', fingerprint: 'f' };
      const first = await fixture.service.createWith(alice, {}, { text: 'once' }, idempotency, async () => 'first');
      const calls: string[] = [];

      const replay = await fixture.service.createWith(
        alice,
        {},
        { text: 'once' },
        idempotency,
        async (record, committed) => {
          calls.push(record.id);
          await committed;
          return 'again';
        },
      );

      expect(replay).toMatchObject({ replayed: true, dependent: 'again', record: first.record });
      expect(calls).toEqual([first.record.id]);
    });

    it('answers the failure of the write, and tells waiting work the record was not committed', async () => {
      // Prepare: the store cannot take the write
      const unavailable = new ServiceUnavailableError('the table is throttling');
      fixture.store.append = () => Promise.reject(unavailable);
      let waited: unknown;

      // Act
      const creating = fixture.service.createWith(
        alice,
        {},
        { text: 'lost' },
        undefined,
        async (_record, committed) => {
          waited = await committed.catch((error: unknown) => error);
          return 'never';
        },
      );

      // Assess
      await expect(creating).rejects.toBe(unavailable);
      expect(waited).toBeInstanceOf(RecordNotCommittedError);
      expect((waited as Error).cause).toBe(unavailable);
    });

    it('answers the failure of the write even when the dependent work never waited for it', async () => {
      const unavailable = new ServiceUnavailableError('the table is throttling');
      fixture.store.append = () => Promise.reject(unavailable);

      const creating = fixture.service.createWith(alice, {}, { text: 'lost' }, undefined, async () => 'ignored');

      await expect(creating).rejects.toBe(unavailable);
    });

    it('answers the failure of the dependent work when the record itself was written', async () => {
      const failure = new Error('the belief could not be merged');

      const creating = fixture.service.createWith(alice, {}, { text: 'kept' }, undefined, async () => {
        throw failure;
      });

      await expect(creating).rejects.toBe(failure);
      expect((await fixture.service.list(alice, {}, { limit: 10 })).items.map((note) => note.content)).toEqual([
        { text: 'kept' },
      ]);
    });

    it('redoes the dependent work on the committed record when a concurrent replay wrote it first', async () => {
      // Prepare: between this request's claim and its write, its replay commits revision 1 of the same id
      const idempotency = { key: 'k', fingerprint: 'f' };
      const append = fixture.store.append.bind(fixture.store);
      fixture.store.append = async (revision, event, options) => {
        await append({ ...revision, content: { text: 'written by the replay' } }, event);
        return append(revision, event, options);
      };
      const calls: { text: string | undefined; committed: unknown }[] = [];

      // Act
      const created = await fixture.service.createWith(
        alice,
        {},
        { text: 'mine' },
        idempotency,
        async (record, committed) => {
          calls.push({
            text: record.content?.text,
            committed: await committed.then(
              () => 'committed',
              (error) => error,
            ),
          });
          return calls.length;
        },
      );

      // Assess: the first run learned that its own write did not commit; the second ran on the stored record
      expect(created.record.content).toEqual({ text: 'written by the replay' });
      expect(created.dependent).toBe(2);
      const [firstRun, secondRun] = calls;
      expect(firstRun?.committed).toBeInstanceOf(RecordNotCommittedError);
      expect((firstRun?.committed as Error | undefined)?.cause).toBeUndefined();
      expect(secondRun).toEqual({ text: 'written by the replay', committed: 'committed' });
    });
  });

  describe('Method: create', () => {
    it('puts the Idempotency-Key on the event of the record it creates', async () => {
      await fixture.service.create(alice, {}, { text: 'keyed' }, { key: 'key-1', fingerprint: 'f' });

      const [entry] = await fixture.store.pendingEvents(10);
      expect(entry?.event).toMatchObject({ event_type: 'record.created', idempotency_key: 'key-1' });
    });

    it('answers a store failure as it is, not as a replay, when an Idempotency-Key is given', async () => {
      const unavailable = new ServiceUnavailableError('the table is throttling');
      fixture.store.append = () => Promise.reject(unavailable);

      await expect(fixture.service.create(alice, {}, { text: 'x' }, { key: 'k', fingerprint: 'f' })).rejects.toBe(
        unavailable,
      );
    });

    it('answers a lost race without an Idempotency-Key as the conflict it is', async () => {
      // Prepare: ids that repeat, so a second create meets the first one's revision 1
      const fixed = recordService({ ids: { next: () => '01J0000000000000000000000A' } });
      await fixed.service.create(alice, {}, { text: 'first' });

      // Act & Assess
      await expect(fixed.service.create(alice, {}, { text: 'second' })).rejects.toBeInstanceOf(RevisionConflictError);
      expect((await fixed.service.get(alice, {}, '01J0000000000000000000000A')).content).toEqual({ text: 'first' });
    });

    it('answers NotFound when the revision a replay lost to cannot be read back', async () => {
      const conflict = new RevisionConflictError();
      fixture.store.append = () => Promise.reject(conflict);

      const creating = fixture.service.create(alice, {}, { text: 'x' }, { key: 'k', fingerprint: 'f' });

      await expect(creating).rejects.toBeInstanceOf(NotFoundError);
      await expect(creating).rejects.toMatchObject({ cause: conflict });
    });
  });

  describe('Method: update and remove', () => {
    it('commit record.revised and record.deleted events', async () => {
      const { record } = await fixture.service.create(alice, {}, { text: 'v1' });
      const revised = await fixture.service.update(alice, {}, record.id, [1], () => ({ text: 'v2' }));

      await fixture.service.remove(alice, {}, record.id, [revised.revision]);

      expect(await eventTypes(fixture.store)).toEqual(['record.created', 'record.revised', 'record.deleted']);
    });

    it('refuses to delete a record under a revision that is no longer its latest', async () => {
      const { record } = await fixture.service.create(alice, {}, { text: 'v1' });
      await fixture.service.update(alice, {}, record.id, [1], () => ({ text: 'v2' }));

      const removing = fixture.service.remove(alice, {}, record.id, [1]);

      await expect(removing).rejects.toBeInstanceOf(RevisionMismatchError);
      await expect(removing).rejects.toMatchObject({ currentRevision: 2 });
      expect((await fixture.service.get(alice, {}, record.id)).content).toEqual({ text: 'v2' });
    });
  });

  describe('Method: put', () => {
    let named: ReturnType<typeof recordService>;

    beforeEach(() => {
      named = recordService({ idPattern: GUARDRAIL_ID });
    });

    it('creates a record under the id it is given, with no sources', async () => {
      const { record, created } = await named.service.put(alice, {}, 'response.length', undefined, { text: 'v1' });

      expect(created).toBe(true);
      expect(record).toMatchObject({ id: 'response.length', revision: 1, content: { text: 'v1' } });
      expect(record.provenance.sourceEventIds).toEqual([]);
      expect(await eventTypes(named.store)).toEqual(['record.created']);
    });

    it('replaces an existing record only under its latest revision', async () => {
      await named.service.put(alice, {}, 'response.length', undefined, { text: 'v1' });

      await expect(named.service.put(alice, {}, 'response.length', undefined, { text: 'x' })).rejects.toBeInstanceOf(
        ExpectedRevisionRequiredError,
      );
      const stale = named.service.put(alice, {}, 'response.length', [7], { text: 'x' });
      await expect(stale).rejects.toBeInstanceOf(RevisionMismatchError);
      await expect(stale).rejects.toMatchObject({ recordId: 'response.length', currentRevision: 1 });
      const replaced = await named.service.put(alice, {}, 'response.length', [1], { text: 'v2' });

      expect(replaced).toMatchObject({ created: false, record: { revision: 2, content: { text: 'v2' } } });
      expect(await eventTypes(named.store)).toEqual(['record.created', 'record.revised']);
    });

    it('refuses an expected revision for a record that does not exist, naming no current one', async () => {
      const putting = named.service.put(alice, {}, 'response.length', [1], { text: 'v1' });

      await expect(putting).rejects.toBeInstanceOf(RevisionMismatchError);
      await expect(putting).rejects.toMatchObject({ currentRevision: undefined });
      expect(await named.store.getHead(notes, 'response.length')).toBeUndefined();
    });

    it('creates a deleted record afresh, without asking for the tombstone’s revision', async () => {
      const first = await named.service.put(alice, {}, 'response.length', undefined, { text: 'v1' });
      await named.service.remove(alice, {}, 'response.length', [first.record.revision]);

      const again = await named.service.put(alice, {}, 'response.length', undefined, { text: 'v3' });

      expect(again).toMatchObject({ created: true, record: { revision: 3, content: { text: 'v3' } } });
      await expect(named.service.put(alice, {}, 'response.length', [2], { text: 'x' })).rejects.toBeInstanceOf(
        RevisionMismatchError,
      );
    });

    it('answers an id outside the kind’s pattern as absent, without reading or writing', async () => {
      const putting = named.service.put(alice, {}, 'Not A Key', undefined, { text: 'v1' });

      await expect(putting).rejects.toBeInstanceOf(NotFoundError);
      expect(await named.store.pendingEvents(10)).toEqual([]);
    });
  });

  describe('Method: get', () => {
    it('answers an id outside the kind’s pattern as absent, whatever the storage holds under it', async () => {
      // Prepare: a record stored under an id that is not a ULID (written by something other than this service)
      const foreign = revisionOf(notes, 'not-a-ulid', 1, { content: { text: 'x' } });
      await fixture.store.append(foreign, eventOf(foreign));

      // Act & Assess
      await expect(fixture.service.get(alice, {}, 'not-a-ulid')).rejects.toBeInstanceOf(NotFoundError);
      await expect(fixture.service.history(alice, {}, 'not-a-ulid', { limit: 10 })).rejects.toBeInstanceOf(
        NotFoundError,
      );
    });
  });
});
