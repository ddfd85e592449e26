import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CANDIDATES_DEADLINE_MS,
  OpenSearchSearchIndex,
} from '../../lambdas/adapters/opensearch/opensearch-search-index.ts';
import { REQUEST_TIMEOUT_MS } from '../../lambdas/adapters/opensearch/opensearch-transport.ts';
import { FeatureHashingEmbedder } from '../../lambdas/capabilities/retrieval/ranking/feature-hashing.ts';
import { BM25_K1, KeywordIndex } from '../../lambdas/capabilities/retrieval/ranking/keyword-index.ts';
import { analyze } from '../../lambdas/capabilities/retrieval/ranking/text-analysis.ts';
import type { Namespace } from '../../lambdas/kernel/namespaces/namespace.ts';
import type { CandidateQuery, CandidateSet } from '../../lambdas/kernel/search/search-index.port.ts';
import { SearchIndexUnavailableError } from '../../lambdas/kernel/search/search-index.port.ts';
import { searchDocument } from '../contract/search-index.contract.ts';
import { OpenSearchStandIn, openSearchIndexOn, STAND_IN_INDEX } from '../support/opensearch-stand-in.ts';
import { KINDS } from '../support/record-kinds.ts';
import { scopeOf } from '../support/scopes.ts';

/*
 * What the service refuses, leaks or takes its time over, and how the adapter copes: keyword statistics that span
 * every namespace, a rebuild under a new embedding model, an index of other dimensions, zero vectors, answers of an
 * unexpected shape, a collection that stops answering.
 */

const INDEX = STAND_IN_INDEX;
const embedder = new FeatureHashingEmbedder();
const indexOn = openSearchIndexOn;

const notes = scopeOf({ sub: 'alice' }).namespace(KINDS.note);
const bobsNotes = scopeOf({ sub: 'bob' }).namespace(KINDS.note);

const keywordScores = (found: CandidateSet): Record<string, number | undefined> =>
  Object.fromEntries(found.candidates.map((candidate) => [candidate.document.id, candidate.keyword]));

const upsertAll = async (index: OpenSearchSearchIndex, namespace: Namespace, texts: readonly string[], prefix = 'd') =>
  index.apply(
    namespace,
    await Promise.all(
      texts.map(async (text, n) => ({
        type: 'upsert' as const,
        document: await searchDocument({ id: `${prefix}${n}`, text }),
      })),
    ),
  );

const zeros = (dimensions: number) => Array.from({ length: dimensions }, () => 0);

describe('Class: OpenSearchSearchIndex (what the service limits and leaks)', () => {
  let standIn: OpenSearchStandIn;
  let index: OpenSearchSearchIndex;
  beforeEach(() => {
    standIn = new OpenSearchStandIn();
    index = indexOn(standIn);
  });
  afterEach(() => {
    expect(standIn.refusals).toEqual([]);
  });

  describe('Method: candidates (keyword statistics)', () => {
    it("does not let a caller's keyword scores tell whether other namespaces' documents hold a term", async () => {
      // Prepare: two deployments alike but for the term the other namespace's 20 documents hold — the same number
      // of documents and terms either way, so only the term's document frequency differs between them
      const alicesTexts = ['launch plan for the quarter', 'budget review'];
      const query: CandidateQuery = { keyword: { text: 'launch budget', limit: 10 }, filter: {} };
      const scoresWhenBobWrites = async (word: string) => {
        const deployment = new OpenSearchStandIn();
        const searchIndex = indexOn(deployment);
        await upsertAll(searchIndex, notes, alicesTexts);
        await upsertAll(
          searchIndex,
          bobsNotes,
          Array.from({ length: 20 }, () => `${word} notes`),
        );
        const scores = keywordScores(await searchIndex.candidates(notes, query));
        expect(deployment.refusals).toEqual([]);
        return scores;
      };

      // Act
      const withTheTerm = await scoresWhenBobWrites('launch');
      const withoutIt = await scoresWhenBobWrites('zebra');

      // Assess: the ratio of the two documents' scores (and the scores) are the same in both
      expect(withTheTerm).toEqual(withoutIt);
      expect((withTheTerm.d0 ?? 0) / (withTheTerm.d1 ?? 1)).toBe((withoutIt.d0 ?? 0) / (withoutIt.d1 ?? 1));
    });

    it('indexes salted terms: no word in clear, and the same word differs between namespaces', async () => {
      // Prepare
      await upsertAll(index, notes, ['launch plan']);
      await upsertAll(index, bobsNotes, ['launch plan']);

      // Act
      const terms = [...standIn.documents(INDEX).values()].map((source) => String(source.terms));

      // Assess
      expect(terms).toHaveLength(2);
      const [alices, bobs] = terms.map((field) => field.split(' '));
      expect(alices).toHaveLength(2);
      for (const term of [...(alices ?? []), ...(bobs ?? [])]) expect(term).toMatch(/^[0-9a-f]{8}(launch|plan)$/);
      expect(alices?.[0]?.slice(0, 8)).not.toBe(bobs?.[0]?.slice(0, 8));
      expect(alices?.[0]?.slice(0, 8)).not.toBe(notes.hash.slice(0, 8));
      expect(JSON.stringify(standIn.requests)).not.toContain('launch plan');
    });

    it("scores one namespace's documents as before: BM25 over the project's analysis, without (k1 + 1)", async () => {
      // Prepare
      const texts = [
        'release notes for the alpha release',
        'beta release planning meeting',
        'incident review of the gamma outage',
        'release train calendar',
        'the quarterly planning review',
      ];
      await upsertAll(index, notes, texts);
      const reference = new KeywordIndex();
      for (const [n, text] of texts.entries()) reference.upsert({ id: `d${n}`, text });

      // Act
      const found = await index.candidates(notes, {
        keyword: { text: 'release planning review', limit: 10 },
        filter: {},
      });

      // Assess
      const expected = reference.search('release planning review', 10);
      expect(found.candidates.map((candidate) => candidate.document.id).sort()).toEqual(
        expected.map((hit) => hit.id).sort(),
      );
      const scores = keywordScores(found);
      for (const hit of expected) expect(scores[hit.id]).toBeCloseTo(hit.raw / (BM25_K1 + 1), 12);
    });

    it('asks nothing of the keyword leg for a query of stop words only', async () => {
      // Prepare
      await upsertAll(index, notes, ['launch plan']);

      // Act
      const found = await index.candidates(notes, { keyword: { text: 'the of and', limit: 10 }, filter: {} });

      // Assess
      expect(found.candidates).toEqual([]);
    });
  });

  describe('Method: rebuild', () => {
    it('replaces a held copy of the same revision, so the vectors of a new embedding model reach the index', async () => {
      // Prepare: indexed under the old model; the rebuild brings the same revision under the new one
      const document = await searchDocument({ id: 'n1', text: 'deployment runbook' });
      await index.apply(notes, [{ type: 'upsert', document: { ...document, model: 'old-model' } }]);

      // Act
      await index.rebuild(notes, async () => ({ documents: [{ ...document, model: 'new-model' }], removed: [] }));
      const found = await index.candidates(notes, {
        semantic: { vector: document.vector ?? [], model: 'new-model', limit: 10 },
        filter: {},
      });

      // Assess
      expect(found.candidates.map((candidate) => [candidate.document.id, candidate.document.model])).toEqual([
        ['n1', 'new-model'],
      ]);
      expect(found.candidates[0]?.semantic).toBeCloseTo(1, 6);
      expect(standIn.documents(INDEX).size).toBe(1);
    });
  });

  describe('Method: apply (an index of other dimensions)', () => {
    it('fails clearly, and asks once, when the index maps vectors of other dimensions than the embedder', async () => {
      // Prepare: the index was made for 256 dimensions; this process embeds with 1,024
      await upsertAll(index, notes, ['made for 256 dimensions']);
      const wider = indexOn(standIn, 1024);
      const document = await searchDocument({ id: 'w', text: 'wider', vector: Array.from({ length: 1024 }, () => 1) });

      // Act
      const first = wider.apply(notes, [{ type: 'upsert', document }]);
      await expect(first).rejects.toBeInstanceOf(SearchIndexUnavailableError);
      const asked = standIn.requests.length;
      const second = wider.apply(notes, [{ type: 'upsert', document }]);

      // Assess
      await expect(first).rejects.toThrow(/vector field has 256 dimensions where the embedder gives 1024/);
      await expect(second).rejects.toThrow(/vector field has 256 dimensions where the embedder gives 1024/);
      expect(standIn.requests.length).toBe(asked);
      expect(standIn.requests.filter((request) => request.path.endsWith('/_bulk'))).toHaveLength(1);
    });

    it('checks the mapping of an index another process created, and writes when it matches', async () => {
      // Prepare
      await upsertAll(index, notes, ['first process']);

      // Act
      await upsertAll(indexOn(standIn), notes, ['second process'], 'e');

      // Assess
      expect(standIn.requests.filter((request) => request.path.endsWith('/_mapping'))).toHaveLength(1);
      expect(standIn.documents(INDEX).size).toBe(2);
    });
  });

  describe('Zero vectors (k-NN refuses them with cosinesimil)', () => {
    it('indexes a document whose vector is zero without a vector, findable by its words', async () => {
      // Prepare
      const document = await searchDocument({ id: 'z', text: 'empty embedding', vector: zeros(embedder.dimensions) });

      // Act
      await index.apply(notes, [{ type: 'upsert', document }]);
      const found = await index.candidates(notes, {
        keyword: { text: 'embedding', limit: 10 },
        semantic: {
          vector: (await searchDocument({ id: 'q', text: 'embedding' })).vector ?? [],
          model: embedder.model,
          limit: 10,
        },
        filter: {},
      });

      // Assess
      const [stored] = [...standIn.documents(INDEX).values()];
      expect(stored).not.toHaveProperty('vector');
      expect(stored).not.toHaveProperty('model');
      expect(found.candidates).toHaveLength(1);
      expect(found.candidates[0]).toMatchObject({ keyword: expect.any(Number) });
      expect(found.candidates[0]?.semantic).toBeUndefined();
    });

    it('answers a zero query vector with no semantic candidates, and the other legs as usual', async () => {
      // Prepare
      await upsertAll(index, notes, ['launch plan']);

      // Act
      const found = await index.candidates(notes, {
        semantic: { vector: zeros(embedder.dimensions), model: embedder.model, limit: 10 },
        recent: { limit: 10 },
        filter: {},
      });

      // Assess
      expect(found.candidates).toHaveLength(1);
      expect(found.candidates[0]).toMatchObject({ recency: 0 });
      expect(found.candidates[0]?.semantic).toBeUndefined();
      const searches = standIn.requests.filter((request) => request.path.endsWith('/_search'));
      expect(searches.some((request) => (request.rawBody ?? '').includes('"knn"'))).toBe(false);
    });

    it('is refused by the stand-in, as by the service, and so is a vector of the wrong dimension', async () => {
      // Prepare: the client straight to a stand-in, with the adapter's index in it
      const service = new OpenSearchStandIn();
      await upsertAll(indexOn(service), notes, ['launch plan']);
      const client = service.client();
      const valid = (await searchDocument({ id: 'v', text: 'valid' })).vector ?? [];
      const source = { namespace: 'n', key: 'n:x', id: 'x', revision: 1, removed: false, write: 'w', model: 'm' };

      // Act
      const written = await client.bulk({
        index: INDEX,
        body: [
          { index: {} },
          { ...source, vector: zeros(embedder.dimensions) },
          { index: {} },
          { ...source, vector: valid.slice(1) },
          { index: {} },
          { ...source, vector: valid },
        ],
      });
      const knn = (vector: number[]) =>
        client.search({ index: INDEX, body: { query: { knn: { vector: { vector, k: 1 } } } } });

      // Assess
      const items = (written.body as { items: { index: { status: number; error?: { reason: string } } }[] }).items;
      expect(items.map((item) => item.index.status)).toEqual([400, 400, 201]);
      expect(items[0]?.index.error?.reason).toMatch(/zero vector is not supported/);
      expect(items[1]?.index.error?.reason).toMatch(/Vector dimension mismatch/);
      await expect(knn(zeros(embedder.dimensions))).rejects.toMatchObject({ statusCode: 400 });
      await expect(knn(valid.slice(1))).rejects.toMatchObject({ statusCode: 400 });
      await expect(knn(valid)).resolves.toMatchObject({ statusCode: 200 });
      expect(service.refusals).toHaveLength(2);
    });
  });

  describe('Answers of an unexpected shape', () => {
    const query: CandidateQuery = { keyword: { text: 'launch', limit: 10 }, recent: { limit: 10 }, filter: {} };

    it('reports a malformed search answer as unavailable, so search falls back to its scan', async () => {
      // Prepare
      await upsertAll(index, notes, ['launch plan']);
      standIn.answerInstead = (request) =>
        request.path.endsWith('/_search') ? { status: 200, body: { hits: { hits: 'not a list' } } } : undefined;

      // Act
      const answer = index.candidates(notes, query);

      // Assess
      await expect(answer).rejects.toBeInstanceOf(SearchIndexUnavailableError);
    });

    it('reports a stored document of the wrong shape as unavailable', async () => {
      // Prepare: the legs answer; the keys' copies come back without their revision
      await upsertAll(index, notes, ['launch plan']);
      standIn.answerInstead = (request) =>
        (request.body as { _source?: unknown } | undefined)?._source === true
          ? {
              status: 200,
              body: { hits: { hits: [{ _id: 'x', _source: { key: `${notes.hash}:d0` }, sort: ['a', 'b'] }] } },
            }
          : undefined;

      // Act
      const answer = index.candidates(notes, query);

      // Assess
      await expect(answer).rejects.toBeInstanceOf(SearchIndexUnavailableError);
    });

    it('reports a malformed bulk answer as unavailable', async () => {
      // Prepare
      await upsertAll(index, notes, ['launch plan']);
      standIn.answerInstead = (request) =>
        request.path.endsWith('/_bulk') ? { status: 200, body: { items: 3 } } : undefined;

      // Act
      const answer = upsertAll(index, notes, ['another plan'], 'e');

      // Assess
      await expect(answer).rejects.toBeInstanceOf(SearchIndexUnavailableError);
    });
  });

  describe('A collection that stops answering', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it("fails a search as unavailable at its 8 s deadline, well inside API Gateway's 29 s", async () => {
      // Prepare: every search is left unanswered; the connection times out as the real one does
      await upsertAll(index, notes, ['launch plan']);
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      standIn.answerInstead = (request) => (request.path.endsWith('/_search') ? 'stall' : undefined);
      const asked = standIn.requests.length;
      let outcome: unknown = 'pending';

      // Act
      index.candidates(notes, { keyword: { text: 'launch', limit: 10 }, recent: { limit: 10 }, filter: {} }).then(
        () => {
          outcome = 'answered';
        },
        (error: unknown) => {
          outcome = error;
        },
      );
      await vi.advanceTimersByTimeAsync(8_000);
      const sentByTheDeadline = standIn.requests.length;
      const outcomeAtTheDeadline = outcome;
      await vi.advanceTimersByTimeAsync(30_000);

      // Assess: failed by the deadline; each request waited 2 s and was tried once more; nothing went on after
      expect(outcomeAtTheDeadline).toBeInstanceOf(SearchIndexUnavailableError);
      expect(CANDIDATES_DEADLINE_MS).toBe(8_000);
      const sent = standIn.requests.slice(asked);
      for (const request of sent) expect(request.timeout).toBe(REQUEST_TIMEOUT_MS);
      expect(sent.length).toBeGreaterThan(0);
      expect(standIn.requests.length).toBe(sentByTheDeadline);
    });

    it('fails at a shorter deadline when given one, aborting what is in flight', async () => {
      // Prepare
      await upsertAll(index, notes, ['launch plan']);
      const quick = new OpenSearchSearchIndex({
        transport: standIn.transport(),
        index: INDEX,
        dimensions: embedder.dimensions,
        analyze,
        deadlineMs: 20,
      });
      standIn.answerInstead = () => 'stall';

      // Act
      const started = Date.now();
      const answer = quick.candidates(notes, { recent: { limit: 10 }, filter: {} });

      // Assess
      await expect(answer).rejects.toThrow(/did not answer within 20 ms/);
      expect(Date.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS);
    });
  });
});
