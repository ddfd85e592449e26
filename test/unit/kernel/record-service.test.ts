import { beforeEach, describe, expect, it } from 'vitest';
import type { InMemoryRecordStore } from '../../../lambdas/adapters/memory/in-memory-record-store.ts';
import { etagOf, revisionsNamedBy } from '../../../lambdas/http/entity-tags.ts';
import { IdempotencyKeyReusedError, RevisionMismatchError } from '../../../lambdas/kernel/records/record.errors.ts';
import type { ManualClock } from '../../../lambdas/kernel/time/clock.ts';
import type { Backend } from '../../support/in-memory-backend.ts';
import { inMemoryBackend } from '../../support/in-memory-backend.ts';
import { KINDS } from '../../support/record-kinds.ts';
import { scopeOf } from '../../support/scopes.ts';

describe('Class: RecordService (through NotesService)', () => {
  let backend: Backend;
  let clock: ManualClock;
  let records: InMemoryRecordStore;
  const alice = scopeOf({ sub: 'alice', client: 'coder-app' });
  const bob = scopeOf({ sub: 'bob' });

  beforeEach(() => {
    ({ backend, clock, records } = inMemoryBackend());
  });

  describe('Method: create', () => {
    it('creates revision 1 with provenance, an ETag and an expiry one horizon away', async () => {
      const { record, replayed } = await backend.notes.create(alice, {}, { text: 'hello', tags: ['x'] });

      expect(replayed).toBe(false);
      expect(record).toMatchObject({
        revision: 1,
        status: 'active',
        content: { text: 'hello', tags: ['x'] },
        owner: { type: 'principal' },
        provenance: { createdBy: { principal: 'alice', client: 'coder-app' } },
        createdAt: '2026-06-01T00:00:00.000Z',
        expiresAt: '2027-06-01T00:00:00.000Z',
      });
      expect(etagOf(record.id, record.revision)).toMatch(/^"1-[A-Za-z0-9_-]{12}"$/);
    });

    it('commits an outbox event naming the actor, with no content and no namespace in clear', async () => {
      const { record } = await backend.notes.create(alice, {}, { text: 'secret-ish text', tags: [] });

      const [entry] = await records.pendingEvents(10);
      expect(entry?.event).toMatchObject({
        event_type: 'record.created',
        record_id: record.id,
        revision: 1,
        tenant: 'acme',
      });
      expect(entry?.event.actor).toEqual({ principal: 'alice', client: 'coder-app' });
      expect(JSON.stringify(entry?.event)).not.toMatch(/secret-ish|t\/acme\/p/);
    });

    it('replays the first response for the same Idempotency-Key and request', async () => {
      const first = await backend.notes.create(alice, {}, { text: 'once', tags: [] }, { key: 'k', fingerprint: 'f1' });
      const again = await backend.notes.create(alice, {}, { text: 'once', tags: [] }, { key: 'k', fingerprint: 'f1' });

      expect(again.replayed).toBe(true);
      expect(again.record).toEqual(first.record);
      expect((await backend.notes.list(alice, {}, { limit: 10 })).items).toHaveLength(1);
    });

    it('refuses the same Idempotency-Key with a different request', async () => {
      await backend.notes.create(alice, {}, { text: 'once', tags: [] }, { key: 'k', fingerprint: 'f1' });

      await expect(
        backend.notes.create(alice, {}, { text: 'other', tags: [] }, { key: 'k', fingerprint: 'f2' }),
      ).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    });

    it('keeps Idempotency-Keys apart per caller, and forgets them after their retention', async () => {
      await backend.notes.create(alice, {}, { text: 'a', tags: [] }, { key: 'k', fingerprint: 'f1' });
      const bobs = await backend.notes.create(bob, {}, { text: 'b', tags: [] }, { key: 'k', fingerprint: 'f2' });
      clock.advance(25 * 3_600_000);
      const later = await backend.notes.create(alice, {}, { text: 'c', tags: [] }, { key: 'k', fingerprint: 'f3' });

      expect(bobs.replayed).toBe(false);
      expect(later.replayed).toBe(false);
    });
  });

  describe('Method: update', () => {
    it('requires the revision the change was computed from: naming none of this record matches nothing', async () => {
      const { record } = await backend.notes.create(alice, {}, { text: 'v1', tags: [] });

      await expect(backend.notes.update(alice, {}, record.id, [], { text: 'v2' })).rejects.toBeInstanceOf(
        RevisionMismatchError,
      );
    });

    it('appends revision n+1 from the revision the caller read, and extends the expiry', async () => {
      const { record } = await backend.notes.create(alice, {}, { text: 'v1', tags: ['keep'] });
      clock.advanceDays(10);

      const updated = await backend.notes.update(alice, {}, record.id, [record.revision], { text: 'v2' });

      expect(updated).toMatchObject({
        revision: 2,
        content: { text: 'v2', tags: ['keep'] },
        expiresAt: '2027-06-11T00:00:00.000Z',
      });
      const history = await backend.notes.history(alice, {}, record.id, { limit: 10 });
      expect(history.items.map((revision) => [revision.revision, revision.content?.text])).toEqual([
        [1, 'v1'],
        [2, 'v2'],
      ]);
    });

    it('refuses a stale revision and names the current one', async () => {
      const { record } = await backend.notes.create(alice, {}, { text: 'v1', tags: [] });
      const updated = await backend.notes.update(alice, {}, record.id, [record.revision], { text: 'v2' });

      const stale = backend.notes.update(alice, {}, record.id, [record.revision], { text: 'v3' });

      await expect(stale).rejects.toBeInstanceOf(RevisionMismatchError);
      await expect(stale).rejects.toMatchObject({ recordId: record.id, currentRevision: updated.revision });
    });

    it('lets only one of two writers that read the same revision win; the other learns the new revision', async () => {
      const { record } = await backend.notes.create(alice, {}, { text: 'v1', tags: [] });

      const outcomes = await Promise.allSettled([
        backend.notes.update(alice, {}, record.id, [record.revision], { text: 'writer one' }),
        backend.notes.update(alice, {}, record.id, [record.revision], { text: 'writer two' }),
      ]);

      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      const winner = outcomes.find((outcome) => outcome.status === 'fulfilled');
      const loser = outcomes.find((outcome) => outcome.status === 'rejected');
      expect(loser?.status === 'rejected' && loser.reason).toBeInstanceOf(RevisionMismatchError);
      expect(loser?.status === 'rejected' && loser.reason.currentRevision).toBe(
        winner?.status === 'fulfilled' && winner.value.revision,
      );
    });

    it('does not accept an ETag taken from another record', async () => {
      const one = await backend.notes.create(alice, {}, { text: 'one', tags: [] });
      const two = await backend.notes.create(alice, {}, { text: 'two', tags: [] });

      await expect(
        backend.notes.update(
          alice,
          {},
          two.record.id,
          revisionsNamedBy(etagOf(one.record.id, one.record.revision), two.record.id),
          { text: 'x' },
        ),
      ).rejects.toBeInstanceOf(RevisionMismatchError);
    });
  });

  describe('Method: remove', () => {
    it('appends a tombstone without content; the note is then absent everywhere', async () => {
      const { record } = await backend.notes.create(alice, {}, { text: 'bye', tags: [] });

      await backend.notes.remove(alice, {}, record.id, [record.revision]);

      const head = await records.getHead(alice.namespace(KINDS.note), record.id);
      expect(head).toMatchObject({ revision: 2, status: 'deleted', content: null });
      await expect(backend.notes.get(alice, {}, record.id)).rejects.toMatchObject({ code: 'not_found' });
      await expect(backend.notes.history(alice, {}, record.id, { limit: 10 })).rejects.toMatchObject({
        code: 'not_found',
      });
      expect((await backend.notes.list(alice, {}, { limit: 10 })).items).toEqual([]);
    });
  });

  describe('Scope', () => {
    it('answers another principal exactly as it answers a note that does not exist', async () => {
      const { record } = await backend.notes.create(alice, {}, { text: 'mine', tags: [] });

      const foreign = await backend.notes.get(bob, {}, record.id).catch((error: unknown) => error);
      const missing = await backend.notes.get(bob, {}, '01ARZ3NDEKTSV4RRFFQ69G5FAV').catch((error: unknown) => error);

      expect(foreign).toEqual(missing);
      expect(foreign).toMatchObject({ code: 'not_found', message: 'Not found' });
    });

    it("keeps an agent's notes apart from the principal's own", async () => {
      const { record } = await backend.notes.create(alice, { agent: 'coder' }, { text: 'for coder', tags: [] });

      await expect(backend.notes.get(alice, {}, record.id)).rejects.toMatchObject({ code: 'not_found' });
      await expect(backend.notes.get(alice, { agent: 'writer' }, record.id)).rejects.toMatchObject({
        code: 'not_found',
      });
      expect((await backend.notes.get(alice, { agent: 'coder' }, record.id)).content?.text).toBe('for coder');
    });
  });

  describe('Expiry', () => {
    it('lets a note lapse one horizon after its last revision', async () => {
      const { record } = await backend.notes.create(alice, {}, { text: 'short-lived', tags: [] });

      clock.advanceDays(364);
      expect((await backend.notes.get(alice, {}, record.id)).revision).toBe(1);
      clock.advanceDays(2);

      await expect(backend.notes.get(alice, {}, record.id)).rejects.toMatchObject({ code: 'not_found' });
    });
  });
});
