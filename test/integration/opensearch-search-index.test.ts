import type { Client } from '@opensearch-project/opensearch';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenSearchSearchIndex } from '../../lambdas/adapters/opensearch/opensearch-search-index.ts';
import {
  MAX_RETRIES,
  openSearchTransport,
  REQUEST_TIMEOUT_MS,
} from '../../lambdas/adapters/opensearch/opensearch-transport.ts';
import { FeatureHashingEmbedder } from '../../lambdas/capabilities/retrieval/ranking/feature-hashing.ts';
import { analyze } from '../../lambdas/capabilities/retrieval/ranking/text-analysis.ts';
import type { CandidateQuery } from '../../lambdas/kernel/search/search-index.port.ts';
import { SearchIndexUnavailableError } from '../../lambdas/kernel/search/search-index.port.ts';
import { describeSearchIndexContract, searchDocument } from '../contract/search-index.contract.ts';
import {
  OpenSearchStandIn,
  openSearchIndexOn,
  type RecordedRequest,
  STAND_IN_INDEX,
} from '../support/opensearch-stand-in.ts';
import { KINDS } from '../support/record-kinds.ts';
import { scopeOf } from '../support/scopes.ts';

const INDEX = STAND_IN_INDEX;
const embedder = new FeatureHashingEmbedder();
const credentials = async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' });
const indexOn = openSearchIndexOn;

describeSearchIndexContract('opensearch, over the stand-in transport', async () => {
  // Each call is answered after the collection's refresh interval has passed (the stand-in's default).
  const standIn = new OpenSearchStandIn();
  return {
    index: indexOn(standIn),
    reopen: () => indexOn(standIn),
    close: async () => {
      expect(standIn.refusals).toEqual([]);
    },
  };
});

const alice = scopeOf({ sub: 'alice' });
const notes = alice.namespace(KINDS.note);
const bobsNotes = scopeOf({ sub: 'bob' }).namespace(KINDS.note);
const searches = (standIn: OpenSearchStandIn) =>
  standIn.requests.filter((request) => request.path.endsWith('/_search'));
const everyLeg = async (text: string, edges: Record<string, string[]>): Promise<CandidateQuery> => {
  const [vector] = await embedder.embed([text]);
  return {
    keyword: { text, limit: 10 },
    semantic: { vector: [...(vector as Float32Array)], model: embedder.model, limit: 10 },
    recent: { limit: 10 },
    related: { edges, limit: 10 },
    filter: {},
  };
};

describe('Class: OpenSearchSearchIndex', () => {
  let standIn: OpenSearchStandIn;
  let index: OpenSearchSearchIndex;
  beforeEach(() => {
    standIn = new OpenSearchStandIn();
    index = indexOn(standIn);
  });
  afterEach(() => {
    expect(standIn.refusals).toEqual([]);
  });

  describe('Method: apply (the requests it sends)', () => {
    it('creates the index once with the documented mapping, then writes without a chosen _id', async () => {
      // Prepare
      const document = await searchDocument({
        id: 'n1',
        text: 'deployment notes',
        tags: ['ops'],
        edges: { entity: ['kiev'] },
      });

      // Act
      await index.apply(notes, [{ type: 'upsert', document }]);
      await index.apply(notes, [{ type: 'upsert', document: { ...document, revision: 2 } }]);

      // Assess: HEAD then PUT the index (https://docs.opensearch.org/latest/api-reference/index-apis/create-index/)
      const [exists, create] = standIn.requests;
      expect([exists?.method, exists?.path, create?.method, create?.path]).toEqual([
        'HEAD',
        `/${INDEX}`,
        'PUT',
        `/${INDEX}`,
      ]);
      expect(create?.body).toMatchObject({
        settings: { index: { knn: true } },
        mappings: {
          dynamic: 'strict',
          properties: {
            namespace: { type: 'keyword' },
            terms: { type: 'text', analyzer: 'whitespace' },
            vector: {
              type: 'knn_vector',
              dimension: 256,
              method: { name: 'hnsw', engine: 'faiss', space_type: 'cosinesimil' },
            },
          },
        },
      });
      expect(
        standIn.requests.filter((request) => request.path === `/${INDEX}` && request.method === 'PUT'),
      ).toHaveLength(1);
      // Bulk is NDJSON, action lines then sources (https://docs.opensearch.org/latest/api-reference/document-apis/bulk/)
      const bulks = standIn.requests.filter((request) => request.path === `/${INDEX}/_bulk`);
      // POST and PUT /{index}/_bulk are both documented endpoints; this client version sends PUT.
      for (const request of bulks) expect(['POST', 'PUT']).toContain(request.method);
      expect(bulks).toHaveLength(2);
      const [first, second] = bulks.map((request) => request.body as Record<string, unknown>[]);
      expect(first?.[0]).toEqual({ index: {} });
      expect(first?.[1]).toMatchObject({
        namespace: notes.hash,
        key: `${notes.hash}:n1`,
        revision: 1,
        removed: false,
        edges: ['tag\u0000ops', 'entity\u0000kiev'],
        graph: { entity: ['kiev'] },
      });
      // The second write replaces the first: a new document, then the old one deleted by its _id
      const [firstId] = [...standIn.documents(INDEX).keys()];
      expect(second?.map((line) => Object.keys(line)[0])).toEqual(['index', 'namespace', 'delete']);
      expect(second?.[2]).toEqual({ delete: { _id: expect.any(String) } });
      expect(standIn.documents(INDEX).size).toBe(1);
      expect(firstId).toBeDefined();
    });

    it('never sends the namespace key in clear, and filters every search by the namespace hash', async () => {
      // Prepare
      await index.apply(notes, [
        {
          type: 'upsert',
          document: await searchDocument({ id: 'a', text: 'quarterly plan', edges: { entity: ['acme'] } }),
        },
        { type: 'remove', id: 'b', revision: 3 },
      ]);
      await index.rebuild(notes, async () => ({ documents: [], removed: [['a', 2]] }));

      // Act
      await index.candidates(notes, await everyLeg('quarterly plan', { entity: ['acme'] }));

      // Assess
      expect(JSON.stringify(standIn.requests)).not.toContain(notes.key);
      const filtered = searches(standIn);
      expect(filtered.length).toBeGreaterThanOrEqual(7);
      for (const request of filtered) expect(namespaceFilterOf(request)).toEqual({ term: { namespace: notes.hash } });
    });

    it('signs with SigV4 for the aoss service through the official AwsSigv4Signer', async () => {
      // Prepare
      const transport = openSearchTransport({
        endpoint: 'https://collection.eu-west-1.aoss.amazonaws.com',
        region: 'eu-west-1',
        credentials,
        connection: (signing) => standIn.connection(signing),
      });
      const signed = new OpenSearchSearchIndex({ transport, index: INDEX, dimensions: embedder.dimensions, analyze });

      // Act
      await signed.apply(notes, [{ type: 'upsert', document: await searchDocument({ id: 's', text: 'signed' }) }]);

      // Assess
      for (const request of standIn.requests) {
        expect(String(request.headers.Authorization ?? request.headers.authorization)).toMatch(
          /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/aoss\/aws4_request/,
        );
        expect(request.headers['x-amz-content-sha256']).toMatch(/^[0-9a-f]{64}$/);
      }
    });
  });

  describe('Requests, against the official client', () => {
    it("sends through its transport what the client's API methods send for the same arguments", async () => {
      // Prepare: every request the index makes — a search before the index exists, its creation, writes that
      // replace and collect copies, every leg of a search, a rebuild
      await index.candidates(notes, { recent: { limit: 1 }, filter: {} });
      const first = await searchDocument({
        id: 'a',
        text: 'quarterly plan',
        tags: ['ops'],
        edges: { entity: ['acme'] },
      });
      await index.apply(notes, [{ type: 'upsert', document: first }]);
      await index.apply(notes, [
        { type: 'upsert', document: { ...first, revision: 2 } },
        { type: 'remove', id: 'b', revision: 3 },
      ]);
      await index.candidates(notes, await everyLeg('quarterly plan', { entity: ['acme'], tag: ['ops'] }));
      await index.rebuild(notes, async () => ({ documents: [{ ...first, revision: 2 }], removed: [] }));
      // Another process finds the index there and checks its mapping
      await indexOn(standIn).apply(notes, [{ type: 'remove', id: 'c', revision: 1 }]);
      const sent = [...standIn.requests];

      // Act: the client, built with the options the transport has, given the index and the body the index sent
      const reference = new OpenSearchStandIn();
      const client = reference.client({ requestTimeout: REQUEST_TIMEOUT_MS, maxRetries: MAX_RETRIES });
      for (const request of sent) await sendThroughTheClient(client, request);

      // Assess: method, path, querystring, headers (content-type, content-length, user-agent), body, timeout
      expect(new Set(sent.map((request) => `${request.method} ${request.path}`))).toEqual(
        new Set([
          `HEAD /${INDEX}`,
          `PUT /${INDEX}`,
          `GET /${INDEX}/_mapping`,
          `POST /${INDEX}/_search`,
          `PUT /${INDEX}/_bulk`,
        ]),
      );
      expect(reference.requests).toEqual(sent);
      const contentTypes = new Map(sent.map((request) => [request.path, request.headers['content-type']]));
      expect(contentTypes.get(`/${INDEX}/_bulk`)).toBe('application/x-ndjson');
      expect(contentTypes.get(`/${INDEX}/_search`)).toBe('application/json');
      const bulk = sent.find((request) => request.path.endsWith('/_bulk'));
      const lines = (bulk?.body ?? []) as unknown[];
      expect(bulk?.rawBody).toBe(`${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
      expect(reference.refusals).toEqual([]);
    });
  });

  describe('Method: candidates', () => {
    it('keeps each namespace to itself on every leg, for the same ids, words and edges', async () => {
      // Prepare
      const shared = { text: 'alice private launch plan', tags: ['launch'], edges: { entity: ['acme'] } };
      await index.apply(notes, [{ type: 'upsert', document: await searchDocument({ id: 'same', ...shared }) }]);
      await index.apply(bobsNotes, [
        { type: 'upsert', document: await searchDocument({ id: 'same', ...shared, text: 'bob public notes' }) },
      ]);
      const query = await everyLeg('alice private launch plan', { entity: ['acme'], tag: ['launch'] });

      // Act
      const bobs = await index.candidates(bobsNotes, query);
      const alices = await index.candidates(notes, query);

      // Assess
      expect(bobs.documents).toBe(1);
      expect(bobs.candidates).toHaveLength(1);
      expect(bobs.candidates[0]?.keyword).toBeUndefined();
      expect(bobs.candidates[0]).toMatchObject({ recency: 0, shared: { entity: ['acme'], tag: ['launch'] } });
      expect(alices.candidates[0]).toMatchObject({ keyword: expect.any(Number), semantic: expect.any(Number) });
      expect(alices.candidates[0]?.semantic).toBeCloseTo(1, 6);
    });

    it('finds nothing before anything was written (the index does not exist yet)', async () => {
      // Act
      const found = await index.candidates(notes, { recent: { limit: 1 }, filter: {} });

      // Assess
      expect(found).toEqual({ candidates: [], documents: 0 });
    });

    it('reports the index as unavailable when the collection cannot be reached', async () => {
      // Prepare: nothing listens on the discard port
      const unreachable = new OpenSearchSearchIndex({
        transport: openSearchTransport({ endpoint: 'http://127.0.0.1:9', region: 'eu-west-1', credentials }),
        index: INDEX,
        dimensions: embedder.dimensions,
        analyze,
      });

      // Act
      const answer = unreachable.candidates(notes, { recent: { limit: 1 }, filter: {} });

      // Assess
      await expect(answer).rejects.toBeInstanceOf(SearchIndexUnavailableError);
    });
  });

  describe('Method: rebuild', () => {
    it('answers the same after a rebuild of a namespace as after its changes one by one (scores included)', async () => {
      // Prepare: the contract's scenario, rebuilt into the same namespace — Lucene's BM25 statistics are the
      // index's, so only within one index state are keyword scores comparable
      const finals = await Promise.all(
        ['alpha release notes', 'beta release planning', 'gamma incident review', 'release train calendar'].map(
          (text, n) => searchDocument({ id: `d${n}`, text, revision: 2, tags: n % 2 ? ['odd'] : [] }),
        ),
      );
      for (const document of finals) {
        await index.apply(notes, [{ type: 'upsert', document: { ...document, revision: 1, text: 'placeholder' } }]);
        await index.apply(notes, [{ type: 'upsert', document }]);
      }
      await index.apply(notes, [{ type: 'remove', id: 'd2', revision: 3 }]);
      const query: CandidateQuery = { keyword: { text: 'release', limit: 10 }, recent: { limit: 10 }, filter: {} };
      const incremental = await index.candidates(notes, query);

      // Act
      await index.rebuild(notes, async () => ({
        documents: finals.filter((d) => d.id !== 'd2'),
        removed: [['d2', 3]],
      }));

      // Assess
      expect(await index.candidates(notes, query)).toEqual(incremental);
      expect(standIn.documents(INDEX).size).toBe(4);
    });
  });

  describe('Within a refresh interval (writes not yet searchable)', () => {
    beforeEach(() => {
      standIn = new OpenSearchStandIn({ refresh: 'manual' });
      index = indexOn(standIn);
    });

    it('lets the newest revision win whatever order its copies were written in, and collects the others', async () => {
      // Prepare: three writes of one record before any refresh, the oldest last; none sees the others
      const revision = async (n: number) => searchDocument({ id: 'r', text: `revision ${n} words`, revision: n });
      await index.apply(notes, [{ type: 'upsert', document: await revision(2) }]);
      await index.apply(notes, [{ type: 'upsert', document: await revision(3) }]);
      await index.apply(notes, [{ type: 'upsert', document: await revision(1) }]);
      standIn.refresh();

      // Act
      const found = await index.candidates(notes, {
        keyword: { text: 'words', limit: 10 },
        recent: { limit: 10 },
        filter: {},
      });
      await index.apply(notes, [{ type: 'upsert', document: await revision(3) }]);

      // Assess
      expect(found.candidates.map((candidate) => candidate.document.revision)).toEqual([3]);
      expect(standIn.documents(INDEX).size).toBe(1);
    });

    it('keeps a removal that is not yet searchable over an upsert of the same revision', async () => {
      // Prepare
      const document = await searchDocument({ id: 'gone', text: 'quarterly numbers', revision: 2 });
      await index.apply(notes, [{ type: 'upsert', document }]);
      await index.apply(notes, [{ type: 'remove', id: 'gone', revision: 2 }]);
      await index.apply(notes, [{ type: 'upsert', document }]);
      standIn.refresh();

      // Act
      const found = await index.candidates(notes, { keyword: { text: 'quarterly', limit: 10 }, filter: {} });

      // Assess
      expect(found.candidates).toEqual([]);
    });
  });
});

/** The client's API method for a request the index sent, given the same index and body. */
const sendThroughTheClient = (client: Client, request: RecordedRequest): Promise<unknown> => {
  const index = decodeURIComponent(request.path.split('/')[1] ?? '');
  const body = request.body as Record<string, unknown>;
  if (request.path.endsWith('/_search')) return client.search({ index, body }, { ignore: [404] });
  if (request.path.endsWith('/_bulk')) return client.bulk({ index, body: request.body as Record<string, unknown>[] });
  if (request.path.endsWith('/_mapping')) return client.indices.getMapping({ index });
  if (request.method === 'HEAD') return client.indices.exists({ index });
  return client.indices.create({ index, body }, { ignore: [400] });
};

/** The namespace clause of a search: first in the bool filter, or in the knn's own filter. */
const namespaceFilterOf = (request: RecordedRequest): unknown => {
  const query = (request.body as { query: Record<string, unknown> }).query;
  const knn = query.knn as { vector: { filter: { bool: { filter: unknown[] } } } } | undefined;
  const filter = knn ? knn.vector.filter.bool.filter : (query.bool as { filter: unknown[] }).filter;
  return filter[0];
};
