import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SearchIndexStore } from '../../lambdas/kernel/search/search-index-store.port.ts';
import { KINDS } from '../support/record-kinds.ts';
import { scopeOf } from '../support/scopes.ts';

export interface SearchIndexStoreFixture {
  readonly store: SearchIndexStore;
  close(): Promise<void>;
}

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
const textOf = (body: Uint8Array) => Buffer.from(body).toString('utf8');

/** What every SearchIndexStore must do: a log whose sequences writers take in turn, and whole snapshots. */
export const describeSearchIndexStoreContract = (name: string, create: () => Promise<SearchIndexStoreFixture>) => {
  describe(`Contract: SearchIndexStore (${name})`, () => {
    let fixture: SearchIndexStoreFixture;
    const notes = scopeOf({ sub: 'alice' }).namespace(KINDS.note);
    const bobsNotes = scopeOf({ sub: 'bob' }).namespace(KINDS.note);
    beforeEach(async () => {
      fixture = await create();
    });
    afterEach(async () => {
      await fixture.close();
    });

    it('starts empty', async () => {
      // Act
      const [latest, entries, snapshot] = await Promise.all([
        fixture.store.latestSequence(notes),
        fixture.store.entriesAfter(notes, 0, 10),
        fixture.store.latestSnapshot(notes),
      ]);

      // Assess
      expect({ latest, entries, snapshot }).toEqual({ latest: 0, entries: [], snapshot: undefined });
    });

    it('gives each sequence to one writer only, and keeps what the first one wrote', async () => {
      // Act
      const first = await fixture.store.append(notes, { sequence: 1, body: bytes('first') });
      const second = await fixture.store.append(notes, { sequence: 1, body: bytes('second') });

      // Assess
      expect([first, second]).toEqual([true, false]);
      const entries = await fixture.store.entriesAfter(notes, 0, 10);
      expect(entries.map((entry) => [entry.sequence, textOf(entry.body)])).toEqual([[1, 'first']]);
    });

    it('reads the log after a sequence in order, no more than the limit, and knows its end', async () => {
      // Prepare
      for (const sequence of [1, 2, 3, 4])
        await fixture.store.append(notes, { sequence, body: bytes(`entry ${sequence}`) });

      // Act
      const page = await fixture.store.entriesAfter(notes, 1, 2);
      const rest = await fixture.store.entriesAfter(notes, 3, 10);

      // Assess
      expect(page.map((entry) => textOf(entry.body))).toEqual(['entry 2', 'entry 3']);
      expect(rest.map((entry) => entry.sequence)).toEqual([4]);
      expect(await fixture.store.latestSequence(notes)).toBe(4);
    });

    it('keeps each namespace to itself', async () => {
      // Prepare
      await fixture.store.append(notes, { sequence: 1, body: bytes('alice') });
      await fixture.store.writeSnapshot(notes, { sequence: 1, body: bytes('alice snapshot'), documents: 1 });

      // Act
      const [latest, entries, snapshot, summary] = await Promise.all([
        fixture.store.latestSequence(bobsNotes),
        fixture.store.entriesAfter(bobsNotes, 0, 10),
        fixture.store.latestSnapshot(bobsNotes),
        fixture.store.latestSnapshotSummary(bobsNotes),
      ]);

      // Assess
      expect({ latest, entries, snapshot, summary }).toEqual({
        latest: 0,
        entries: [],
        snapshot: undefined,
        summary: undefined,
      });
    });

    it('answers the newest snapshot whole, however large', async () => {
      // Prepare: larger than one storage item holds, and than one query answers (1 MB)
      const large = randomBytes(2_500_000);
      await fixture.store.writeSnapshot(notes, { sequence: 3, body: bytes('older'), documents: 2 });
      await fixture.store.writeSnapshot(notes, { sequence: 8, body: large, documents: 5000 });

      // Act
      const snapshot = await fixture.store.latestSnapshot(notes);
      const summary = await fixture.store.latestSnapshotSummary(notes);

      // Assess
      expect(snapshot?.sequence).toBe(8);
      expect(summary).toEqual({ sequence: 8, documents: 5000 });
      expect(Buffer.from(snapshot?.body ?? []).equals(large)).toBe(true);
    });

    it('keeps two snapshots written at one sequence apart: the newest opens whole', async () => {
      // Prepare: a compaction and a rebuild at the same sequence, each several chunks long
      const [one, other] = [randomBytes(800_000), randomBytes(800_000)];

      // Act
      await Promise.all([
        fixture.store.writeSnapshot(notes, { sequence: 7, body: one, documents: 1 }),
        fixture.store.writeSnapshot(notes, { sequence: 7, body: other, documents: 1 }),
      ]);
      const snapshot = await fixture.store.latestSnapshot(notes);

      // Assess
      const body = Buffer.from(snapshot?.body ?? []);
      expect(snapshot?.sequence).toBe(7);
      expect(body.equals(one) || body.equals(other)).toBe(true);
    });
  });
};
