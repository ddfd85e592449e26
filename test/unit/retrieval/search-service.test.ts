import { describe, expect, it } from 'vitest';
import { SessionEventInput } from '../../../lambdas/capabilities/learning/session-event.schema.ts';
import { SEARCH_STRATEGIES, SearchInput } from '../../../lambdas/capabilities/retrieval/search.schema.ts';
import type { Scope } from '../../../lambdas/kernel/identity/scope.ts';
import type { Embedder } from '../../../lambdas/kernel/search/embedder.port.ts';
import { assembleBackend, inMemoryBackend } from '../../support/in-memory-backend.ts';
import { scopeOf } from '../../support/scopes.ts';

const alice: Scope = scopeOf({ sub: 'alice' });

/** The search service over the whole service on in-memory ports: the index fed by the relay, as in production. */
const service = async () => {
  const fixture = inMemoryBackend();
  const { backend } = fixture;
  const write = async (text: string, tags: string[] = []) => {
    const { record } = await backend.notes.create(alice, {}, { text, tags }, undefined);
    fixture.clock.advance(1000);
    return record;
  };
  const relay = () => backend.system.relay.sweep();
  const answer = async (strategy: (typeof SEARCH_STRATEGIES)[number], query: string) => {
    const outcome = await backend.search.search(alice, { query, strategy, k: 10 });
    return outcome.hits.map((hit) => ({ id: hit.head.id, score: hit.score, features: hit.features, graph: hit.graph }));
  };
  return { ...fixture, write, relay, answer };
};

describe('SearchService', () => {
  it('answers the same after a rebuild from canonical heads as it did fed event by event', async () => {
    // Prepare: creates, a revision and a delete, all relayed to the index one event at a time
    const { backend, write, relay, answer } = await service();
    const notes = [];
    for (const text of [
      'kayak trip to the fjords',
      'fjords ferry timetable',
      'kayak repair kit list',
      'dentist on monday',
    ])
      notes.push(await write(text, text.includes('kayak') ? ['outdoors'] : []));
    const [first, , third] = notes;
    await backend.notes.update(alice, {}, first?.id as string, [1], { text: 'kayak trip to the norwegian fjords' });
    await backend.notes.remove(alice, {}, third?.id as string, [1]);
    await relay();
    const fed = await Promise.all(SEARCH_STRATEGIES.map((strategy) => answer(strategy, 'kayak fjords')));

    // Act
    const report = await backend.system.reconciler.run();
    const rebuilt = await Promise.all(SEARCH_STRATEGIES.map((strategy) => answer(strategy, 'kayak fjords')));

    // Assess
    expect(report.projectionsRebuilt).toBeGreaterThan(0);
    expect(rebuilt).toEqual(fed);
    expect(fed[1]?.map((hit) => hit.id)).toEqual([first?.id, notes[1]?.id]);
  });

  it('scans the namespace when the index cannot answer, and says so', async () => {
    // Prepare
    const fixture = await service();
    const note = await fixture.write('passport renewal appointment');
    await fixture.relay();
    (fixture.ports.searchIndexStore as { entriesAfter: unknown }).entriesAfter = async () => {
      throw new Error('storage is down');
    };
    const { backend } = fixture;

    // Act
    const outcome = await backend.search.search(alice, {
      query: 'passport',
      kinds: ['note'],
      strategy: 'keyword',
      k: 5,
    });

    // Assess
    expect(outcome.hits.map((hit) => hit.head.id)).toEqual([note.id]);
    expect(outcome.limitations.map((limitation) => limitation.code)).toEqual(['index-unavailable']);
    expect(fixture.metrics.countOf('search.index_unavailable')).toBe(1);
  });

  it('drops and counts an entry whose record is gone, though the index still holds it', async () => {
    // Prepare: indexed, then deleted without the event reaching the index
    const { backend, write, relay, metrics } = await service();
    const note = await write('wedding speech draft');
    await relay();
    await backend.notes.remove(alice, {}, note.id, [1]);

    // Act
    const outcome = await backend.search.search(alice, { query: 'wedding speech', strategy: 'hybrid', k: 5 });

    // Assess
    expect(outcome.hits).toEqual([]);
    expect(outcome.limitations.map((limitation) => limitation.code)).toEqual(['stale-entries-dropped']);
    expect(metrics.countOf('search.stale_dropped')).toBe(1);
  });

  it('shows nothing of a deleted record’s index entry: the same features whatever words it held, and no count', async () => {
    // Prepare: indexed, then deleted without the event reaching the index
    const { backend, write, relay } = await service();
    const secret = await write('alpha hunter2 hunter2');
    const kept = await write('alpha beta');
    await relay();
    await backend.notes.remove(alice, {}, secret.id, [1]);

    // Act
    const guessed = await backend.search.search(alice, { query: 'alpha hunter2', strategy: 'hybrid', k: 5 });
    const wrong = await backend.search.search(alice, { query: 'alpha wrongguess', strategy: 'hybrid', k: 5 });

    // Assess
    const shown = (outcome: typeof guessed) => outcome.hits.map((hit) => [hit.head.id, hit.features.keyword]);
    expect(shown(guessed)).toEqual([[kept.id, 1]]);
    expect(shown(wrong)).toEqual([[kept.id, 1]]);
    expect(JSON.stringify(guessed.limitations)).not.toMatch(/\d/);
  });

  it('ranks a record revised since it was indexed on its current text only', async () => {
    // Prepare: indexed, then revised without the event reaching the index
    const { backend, write, relay } = await service();
    const revised = await write('launch codeword zebra zebra');
    await write('launch something else entirely');
    await relay();
    await backend.notes.update(alice, {}, revised.id, [1], { text: 'launch codeword redacted' });

    // Act
    const answers = await Promise.all(
      ['launch zebra', 'launch giraffe'].map((query) =>
        backend.search.search(alice, { query, strategy: 'keyword', k: 5 }),
      ),
    );
    const semantic = await backend.search.search(alice, { query: 'codeword redacted', strategy: 'semantic', k: 5 });

    // Assess: no BM25 of the old text is used, so the words it held make no difference
    const shown = answers.map((outcome) => outcome.hits.map((hit) => [hit.head.id, hit.features]));
    expect(shown[0]).toEqual(shown[1]);
    expect(shown[0]?.map(([id]) => id)).not.toContain(revised.id);
    const [hit] = semantic.hits;
    expect(hit?.head.id).toBe(revised.id);
    expect(hit?.head.revision).toBe(2);
  });

  it('takes an instant written without milliseconds as the same instant', async () => {
    // Prepare
    const { backend, write, relay } = await service();
    const note = await write('dentist appointment');
    await relay();

    // Act
    const since = `${note.updatedAt.slice(0, 19)}Z`;
    const outcome = await backend.search.search(alice, SearchInput.parse({ query: 'dentist', filters: { since } }));

    // Assess
    expect(note.updatedAt.endsWith('.000Z')).toBe(true);
    expect(outcome.hits.map((hit) => hit.head.id)).toEqual([note.id]);
  });

  it('filters beliefs by the status they have now, decay included, not the status they were indexed with', async () => {
    // Prepare: a statement matures at once; sixty days without confirmation make it provisional again
    const { backend, relay, clock } = await service();
    const statement = SessionEventInput.parse({ type: 'statement', text: 'My timezone is Europe/Berlin.' });
    await backend.sessionEvents.append(alice, 's1', statement);
    await relay();
    const query = { query: 'timezone', strategy: 'keyword' as const, k: 5 };
    const matureThen = await backend.search.search(alice, { ...query, filters: { status: ['mature'] } });
    clock.advance(61 * 86_400_000);

    // Act
    const matureNow = await backend.search.search(alice, { ...query, filters: { status: ['mature'] } });
    const unfiltered = await backend.search.search(alice, query);

    // Assess
    expect(matureThen.hits).toHaveLength(1);
    expect(matureNow.hits).toEqual([]);
    const [hit] = unfiltered.hits;
    expect(hit?.head.id).toBe(matureThen.hits[0]?.head.id);
    expect(await hit?.projection.present(hit.head)).toMatchObject({ status: 'provisional' });
  });

  it('finds a belief by a status it came to have after it was indexed, with no revision written since', async () => {
    // Prepare: indexed as mature; sixty days later it has decayed to provisional, the index's copy still says mature
    const { backend, relay, clock } = await service();
    const statement = SessionEventInput.parse({ type: 'statement', text: 'My timezone is Europe/Berlin.' });
    await backend.sessionEvents.append(alice, 's1', statement);
    await relay();
    const query = { query: 'timezone', strategy: 'keyword' as const, k: 5 };
    const provisionalThen = await backend.search.search(alice, { ...query, filters: { status: ['provisional'] } });
    clock.advance(61 * 86_400_000);

    // Act
    const provisionalNow = await backend.search.search(alice, { ...query, filters: { status: ['provisional'] } });

    // Assess: the index was not asked to filter on its stale copy; verification matched the status it has now
    expect(provisionalThen.hits).toEqual([]);
    expect(provisionalNow.hits).toHaveLength(1);
    expect(await provisionalNow.hits[0]?.projection.present(provisionalNow.hits[0].head)).toMatchObject({
      status: 'provisional',
    });
  });

  it.each(SEARCH_STRATEGIES)(
    '%s: still answers after the embedder changed, before any rebuild, comparing no vectors of two models',
    async (strategy) => {
      // Prepare: a note indexed with the default 256-dimension hashing, then the service redeployed with a 1,024-one
      const fixture = inMemoryBackend();
      await fixture.backend.notes.create(alice, {}, { text: 'kayak trip to the fjords', tags: ['trip'] }, undefined);
      await fixture.backend.system.relay.sweep();
      const model: Embedder = {
        model: 'a-model/1024',
        dimensions: 1024,
        embed: async (texts) => texts.map(() => Float32Array.from({ length: 1024 }, (_, i) => (i === 0 ? 1 : 0))),
      };
      const redeployed = assembleBackend({ ...fixture.ports, embedder: model });

      // Act
      const outcome = await redeployed.search.search(alice, { query: 'kayak fjords', strategy, k: 5 });

      // Assess: found as before (the semantic leg has no vector of the new model yet, the others do not need one)
      const expected = strategy === 'semantic' ? 0 : 1;
      expect(outcome.hits).toHaveLength(expected);
      for (const hit of outcome.hits) expect(Number.isFinite(hit.score)).toBe(true);
    },
  );
});
