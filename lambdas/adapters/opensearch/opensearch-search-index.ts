import { createHash, randomUUID } from 'node:crypto';
import type {
  ApiResponse,
  TransportRequestOptions,
  TransportRequestParams,
  TransportRequestPromise,
} from '@opensearch-project/opensearch/lib/Transport.js';
import * as z from 'zod';
import type { Namespace } from '../../kernel/namespaces/namespace.ts';
import type { IndexChange, SearchDocument } from '../../kernel/search/search-document.ts';
import { idOfChange, revisionOfChange } from '../../kernel/search/search-document.ts';
import {
  type Candidate,
  type CandidateQuery,
  type CandidateSet,
  type RebuiltState,
  type SearchFilter,
  type SearchIndex,
  SearchIndexUnavailableError,
} from '../../kernel/search/search-index.port.ts';

/*
 * The opt-in index on an OpenSearch Serverless VECTORSEARCH collection: one index per deployment, every namespace's
 * documents in it, each carrying `namespace` = the namespace's hash (never its key) and `key` = `{hash}:{id}`.
 * Every request this file builds starts from `namespaceClauses`, so no query can leave its namespace.
 *
 * What the service allows shaped the writes (see docs/ links in the report of issue 12):
 * - A vector search collection refuses a client-chosen `_id` on index/create and refuses upserts ("Document ID is not
 *   supported in create/index operation request"; AWS, serverless-overview.html#serverless-usecase), so the key is
 *   a field and each write is a new document with a service-made `_id`. Without a chosen `_id` there is no
 *   seq_no/primary_term to condition on, and scripts are not supported either (serverless-vector-search.html
 *   #serverless-vector-limitations), so nothing can be updated conditionally.
 * - Hence the rule: writes only append, and a key's current state is decided when it is read — the highest
 *   (revision, removal-over-upsert) among the documents held for the key, the order the embedded index applies.
 *   Whatever order or concurrency the writes had, an older revision can never win over a newer one; the copies it
 *   outlived are deleted by `_id` on the key's next change and by a rebuild (`_delete_by_query` is not offered).
 * - Searches see a write after the collection's refresh interval (there is no `_refresh` API to call), which the
 *   verification against canonical heads covers as it covers any index lag.
 */

/** The keyword leg's scoring is Lucene's BM25 (see the mapping below) over terms this file analyses itself. */
const WHITESPACE = 'whitespace';
/** Lucene's whitespace tokenizer splits a token longer than this (`max_token_length`); longer terms are hashed. */
const MAX_TOKEN_LENGTH = 255;
const SALT_LENGTH = 8;
const EDGE_SEPARATOR = '\u0000';
const TAG_EDGE = 'tag';
/** More than a leg's limit is asked for, so that copies a newer revision outlived do not leave it short. */
const SLACK = 10;
const PAGE = 1000;
const BULK_ACTIONS = 500;
/**
 * The most a `candidates` call waits: its two sequential stages (the legs at once, then the keys' copies) at
 * 2 × 2 s each (opensearch-transport.ts: a 2 s request timeout, one retry) is 8 s, well inside API Gateway's 29 s,
 * so the search's fallback to a scan still runs; the deadline aborts whatever is still in flight at 8 s.
 */
export const CANDIDATES_DEADLINE_MS = 8_000;

/**
 * What this index sends its requests through: the official client's transport, the method every `Client` API method
 * calls. The requests are the ones those methods build (api/_core/search.js, bulk.js, api/indices/exists.js,
 * create.js in the package), which a test holds them to; the client itself, every endpoint of the API, stays out of
 * the bundle.
 */
export interface OpenSearchTransport {
  request(params: TransportRequestParams, options?: TransportRequestOptions): TransportRequestPromise<ApiResponse>;
}

export interface OpenSearchSearchIndexOptions {
  /** A transport to the collection's endpoint, signing with SigV4 for service `aoss` (see opensearch-transport.ts). */
  readonly transport: OpenSearchTransport;
  /** The deployment's index in the collection. */
  readonly index: string;
  /** The embedder's dimensions: the `knn_vector` field's. */
  readonly dimensions: number;
  /**
   * The embedded index's analysis of a text into terms, in order with repeats (text-analysis.ts `analyze`): the
   * composition passes it, since an adapter may not import a capability.
   */
  readonly analyze: (text: string) => readonly string[];
  /** How long a `candidates` call may take before it fails as unavailable; CANDIDATES_DEADLINE_MS by default. */
  readonly deadlineMs?: number;
}

/**
 * The index's mapping. `dynamic: strict` refuses any field not named here. Keyword fields filter. `terms` holds the
 * text as the embedded index analyses it (text-analysis.ts), each term prefixed by its namespace's salt (`termsOf`),
 * read by the whitespace analyzer (no stemming, no stop words: that was done) and scored by the default similarity,
 * Lucene's BM25 (k1 = 1.2, b = 0.75): it has no (k1 + 1) factor, which the top-score normalisation cancels, and its
 * k1 is 1.2 where the embedded index uses 1.5 — custom similarity settings are not among what Serverless documents
 * as supported, so none is set. Lucene's statistics are the field's over the whole index, every namespace's
 * documents: the salt makes a term's document frequency count its namespace's documents only, so a caller's scores
 * no longer tell whether documents elsewhere hold a term. What stays index-wide is the field's document count and
 * average length, which tell only how much the deployment holds, not what. The vector is HNSW on
 * Faiss with cosine similarity (Faiss is the engine a vector collection offers with filtering inside the search;
 * Lucene is not supported there, NMSLIB is deprecated; cosinesimil on Faiss needs OpenSearch 2.19).
 */
export const searchIndexMapping = (dimensions: number) =>
  ({
    settings: { index: { knn: true } },
    mappings: {
      dynamic: 'strict',
      properties: {
        namespace: { type: 'keyword' },
        key: { type: 'keyword' },
        id: { type: 'keyword' },
        revision: { type: 'integer' },
        removed: { type: 'boolean' },
        /** Unique per write: the tie-breaker that makes paging over a key's copies total. */
        write: { type: 'keyword' },
        kind: { type: 'keyword' },
        createdAt: { type: 'date' },
        updatedAt: { type: 'date' },
        expiresAt: { type: 'date' },
        terms: { type: 'text', analyzer: WHITESPACE },
        states: { type: 'keyword' },
        tags: { type: 'keyword' },
        /** `type\u0000value` for every edge and tag: what the related leg matches. */
        edges: { type: 'keyword' },
        /** The edges as the document had them, kept in the source only. */
        graph: { type: 'object', enabled: false },
        model: { type: 'keyword' },
        vector: {
          type: 'knn_vector',
          dimension: dimensions,
          method: { name: 'hnsw', engine: 'faiss', space_type: 'cosinesimil' },
        },
      },
    },
  }) as const;

/** A document as the index holds it: the search document's fields, or a tombstone. */
const StoredDocument = z.object({
  namespace: z.string(),
  key: z.string(),
  id: z.string(),
  revision: z.number().int().positive(),
  removed: z.boolean(),
  write: z.string(),
  kind: z.string().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
  expiresAt: z.string().optional(),
  states: z.array(z.string()).optional(),
  tags: z.array(z.string()).optional(),
  graph: z.record(z.string(), z.array(z.string())).optional(),
  model: z.string().optional(),
  vector: z.array(z.number()).optional(),
});
type StoredDocument = z.infer<typeof StoredDocument>;
const HeldVersion = StoredDocument.pick({ key: true, revision: true, removed: true });

const Hit = z.object({
  _id: z.string(),
  _score: z.number().nullable().optional(),
  _source: z.record(z.string(), z.unknown()).optional(),
  sort: z.array(z.unknown()).optional(),
});
type Hit = z.infer<typeof Hit>;

const SearchResponse = z.object({
  hits: z.object({
    total: z.object({ value: z.number() }).optional(),
    hits: z.array(Hit),
  }),
});

/** `GET /{index}/_mapping`: the fields this adapter checks, by index name. */
const MappingResponse = z.record(
  z.string(),
  z.object({
    mappings: z.object({
      properties: z.record(
        z.string(),
        z.object({ type: z.string().optional(), dimension: z.number().optional(), analyzer: z.string().optional() }),
      ),
    }),
  }),
);

const BulkResponse = z.object({
  errors: z.boolean(),
  items: z.array(
    z.record(z.string(), z.object({ status: z.number(), error: z.unknown().optional(), _id: z.string().optional() })),
  ),
});

/** What a key's copies are compared by: the revision, and a removal over an upsert of the same revision. */
interface Version {
  readonly revision: number;
  readonly removed: boolean;
}

const compareVersions = (a: Version, b: Version): number =>
  a.revision - b.revision || Number(a.removed) - Number(b.removed);

const versionOfChange = (change: IndexChange): Version => ({
  revision: revisionOfChange(change),
  removed: change.type === 'remove',
});

interface HeldCopy extends Version {
  readonly _id: string;
  readonly key: string;
}

type Query = Record<string, unknown>;

export class OpenSearchSearchIndex implements SearchIndex {
  readonly name = 'opensearch';
  readonly #transport: OpenSearchTransport;
  /** The index's name as a path segment, escaped as the client's API methods escape it. */
  readonly #path: string;
  readonly #dimensions: number;
  readonly #deadlineMs: number;
  readonly #analyze: (text: string) => readonly string[];
  #created: Promise<void> | undefined;

  constructor(options: OpenSearchSearchIndexOptions) {
    this.#transport = options.transport;
    this.#path = `/${encodeURIComponent(options.index)}`;
    this.#dimensions = options.dimensions;
    this.#deadlineMs = options.deadlineMs ?? CANDIDATES_DEADLINE_MS;
    this.#analyze = options.analyze;
  }

  async apply(namespace: Namespace, changes: readonly IndexChange[]): Promise<void> {
    if (changes.length === 0) return;
    await this.#ensureIndex();
    const newest = new Map<string, IndexChange>();
    for (const change of changes) {
      const key = keyOf(namespace, idOfChange(change));
      const known = newest.get(key);
      if (!known || compareVersions(versionOfChange(change), versionOfChange(known)) > 0) newest.set(key, change);
    }
    const held = groupByKey(await this.#copies(namespace, { terms: { key: [...newest.keys()] } }));
    const writes: unknown[] = [];
    const deletes: string[] = [];
    for (const [key, change] of newest) {
      const copies = held.get(key) ?? [];
      const current = newestCopy(copies);
      if (!current || compareVersions(versionOfChange(change), current) > 0) {
        writes.push(storedOfChange(namespace, change, this.#analyze));
        deletes.push(...copies.map((copy) => copy._id));
      } else {
        // Known already: only the copies the current one outlived go.
        deletes.push(...copies.filter((copy) => copy !== current).map((copy) => copy._id));
      }
    }
    await this.#bulk(writes, deletes);
  }

  async rebuild(namespace: Namespace, read: () => Promise<RebuiltState>): Promise<void> {
    await this.#ensureIndex();
    // What the index holds before the canonical read: only these are replaced. A change applied while the read
    // runs is a copy not listed here, so it stays, and the read order decides between it and the rebuilt one.
    const held = groupByKey(await this.#copies(namespace));
    const state = await read();
    const rebuilt = new Map<string, IndexChange>();
    const entries: IndexChange[] = [
      ...state.documents.map((document): IndexChange => ({ type: 'upsert', document })),
      ...state.removed.map(([id, revision]): IndexChange => ({ type: 'remove', id, revision })),
    ];
    for (const change of entries) {
      const key = keyOf(namespace, idOfChange(change));
      const known = rebuilt.get(key);
      if (!known || compareVersions(versionOfChange(change), versionOfChange(known)) > 0) rebuilt.set(key, change);
    }
    // Every held copy is replaced, one of the same version too: a rebuild is how the index learns what a version
    // does not show, such as the vectors of a new embedding model (the semantic leg keeps to the query's model).
    const writes: unknown[] = [];
    const deletes: string[] = [];
    for (const key of new Set([...held.keys(), ...rebuilt.keys()])) {
      const change = rebuilt.get(key);
      if (change) writes.push(storedOfChange(namespace, change, this.#analyze));
      deletes.push(...(held.get(key) ?? []).map((copy) => copy._id));
    }
    await this.#bulk(writes, deletes);
  }

  /** Fails as unavailable after `deadlineMs`, aborting what is still in flight, so the search can fall back. */
  async candidates(namespace: Namespace, query: CandidateQuery): Promise<CandidateSet> {
    const deadline = new AbortController();
    const expired = new Promise<never>((_, reject) => {
      deadline.signal.addEventListener('abort', () =>
        reject(new SearchIndexUnavailableError(`The OpenSearch index did not answer within ${this.#deadlineMs} ms`)),
      );
    });
    const timer = setTimeout(() => deadline.abort(), this.#deadlineMs);
    try {
      return await Promise.race([this.#candidates(namespace, query, deadline.signal), expired]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #candidates(namespace: Namespace, query: CandidateQuery, signal: AbortSignal): Promise<CandidateSet> {
    const filter = [...namespaceClauses(namespace), { term: { removed: false } }, ...filterClauses(query.filter)];
    const keywordTerms = query.keyword ? [...new Set(termsOf(namespace, this.#analyze(query.keyword.text)))] : [];
    // cosinesimil is undefined for a zero vector, which k-NN (≥ 2.13) refuses: such a query is near nothing.
    const semantic = query.semantic && hasDirection(query.semantic.vector) ? query.semantic : undefined;
    const [keyword, semanticHits, recent, related, documents] = await Promise.all([
      query.keyword &&
        (keywordTerms.length === 0
          ? []
          : this.#search(
              {
                size: query.keyword.limit + SLACK,
                query: { bool: { filter, must: [{ match: { terms: { query: keywordTerms.join(' ') } } }] } },
                sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
                _source: ['key', 'revision'],
              },
              signal,
            )),
      semantic &&
        this.#search(
          {
            size: semantic.limit + SLACK,
            query: {
              knn: {
                vector: {
                  vector: semantic.vector,
                  k: semantic.limit + SLACK,
                  filter: { bool: { filter: [...filter, { term: { model: semantic.model } }] } },
                },
              },
            },
            _source: ['key', 'revision'],
          },
          signal,
        ),
      query.recent &&
        this.#search(
          {
            size: query.recent.limit + SLACK,
            query: { bool: { filter } },
            sort: [{ updatedAt: { order: 'desc' } }, { id: { order: 'desc' } }],
            _source: ['key', 'revision'],
          },
          signal,
        ),
      query.related && this.#related(filter, query.related.edges, query.related.limit, signal),
      this.#count(namespace, signal),
    ]);
    const legs = [keyword, semanticHits, recent, related].filter((hits): hits is Hit[] => hits !== undefined);
    const keys = new Set(legs.flatMap((hits) => hits.map((hit) => keyOfHit(hit))));
    const current = await this.#current(namespace, [...keys], signal);
    const found = new Map<string, Record<string, unknown>>();
    const at = (document: StoredDocument) => {
      const entry = found.get(document.key) ?? {};
      found.set(document.key, entry);
      return entry;
    };
    const currentHits = (hits: Hit[] | undefined, limit: number) => {
      const seen = new Set<string>();
      const kept: { hit: Hit; document: StoredDocument }[] = [];
      for (const hit of hits ?? []) {
        const document = current.get(keyOfHit(hit));
        if (!document || document.revision !== hit._source?.revision || seen.has(document.key)) continue;
        seen.add(document.key);
        kept.push({ hit, document });
        if (kept.length >= limit) break;
      }
      return kept;
    };
    for (const { hit, document } of currentHits(keyword, query.keyword?.limit ?? 0))
      at(document).keyword = hit._score ?? 0;
    // cosinesimil scores (1 + cos) / 2: https://docs.opensearch.org/latest/mappings/supported-field-types/knn-spaces/
    for (const { hit, document } of currentHits(semanticHits, semantic?.limit ?? 0))
      at(document).semantic = 2 * (hit._score ?? 0) - 1;
    for (const [rank, { document }] of currentHits(recent, query.recent?.limit ?? 0).entries())
      at(document).recency = rank;
    for (const { document } of currentHits(related, query.related?.limit ?? 0))
      at(document).shared = sharedEdges(document, query.related?.edges ?? {});
    const candidates = [...found.entries()].map(
      ([key, scores]): Candidate => ({ document: searchDocumentOf(current.get(key) as StoredDocument), ...scores }),
    );
    return { candidates, documents };
  }

  /** Most shared edge values first (each matched value scores 1), then the newest. */
  #related(
    filter: Query[],
    edges: Readonly<Record<string, readonly string[]>>,
    limit: number,
    signal: AbortSignal,
  ): Promise<Hit[]> {
    const values = Object.entries(edges).flatMap(([type, list]) =>
      [...new Set(list)].map((value) => edgeOf(type, value)),
    );
    if (values.length === 0) return Promise.resolve([]);
    return this.#search(
      {
        size: limit + SLACK,
        query: {
          bool: {
            filter,
            should: values.map((value) => ({ constant_score: { filter: { term: { edges: value } }, boost: 1 } })),
            minimum_should_match: 1,
          },
        },
        sort: [{ _score: { order: 'desc' } }, { updatedAt: { order: 'desc' } }, { id: { order: 'desc' } }],
        _source: ['key', 'revision'],
      },
      signal,
    );
  }

  async #count(namespace: Namespace, signal: AbortSignal): Promise<number> {
    const response = await this.#searchRequest(
      {
        size: 0,
        track_total_hits: true,
        query: { bool: { filter: [...namespaceClauses(namespace), { term: { removed: false } }] } },
      },
      signal,
    );
    if (isMissingIndex(response)) return 0;
    return parsedAnswer(SearchResponse, response).hits.total?.value ?? 0;
  }

  /** The current state of each key: its newest copy when that is a live document; none for a removed one. */
  async #current(
    namespace: Namespace,
    keys: readonly string[],
    signal: AbortSignal,
  ): Promise<Map<string, StoredDocument>> {
    const current = new Map<string, StoredDocument>();
    if (keys.length === 0) return current;
    const newest = new Map<string, StoredDocument>();
    for (const hit of await this.#all(namespace, { terms: { key: keys } }, true, signal)) {
      const document = parsedAnswer(StoredDocument, hit._source);
      if (document.namespace !== namespace.hash) continue;
      const known = newest.get(document.key);
      if (!known || compareVersions(document, known) > 0) newest.set(document.key, document);
    }
    for (const [key, document] of newest) if (!document.removed) current.set(key, document);
    return current;
  }

  /** Every copy held in the namespace (for `only` keys), with its `_id`. */
  async #copies(namespace: Namespace, only?: Query): Promise<HeldCopy[]> {
    const hits = await this.#all(namespace, only, ['key', 'revision', 'removed']);
    return hits.map((hit) => {
      const { key, revision, removed } = parsedAnswer(HeldVersion, hit._source);
      return { _id: hit._id, key, revision, removed };
    });
  }

  /** Every hit of a filter in the namespace, paged by (key, write), which no two copies share. */
  async #all(
    namespace: Namespace,
    only: Query | undefined,
    source: boolean | string[],
    signal?: AbortSignal,
  ): Promise<Hit[]> {
    const hits: Hit[] = [];
    let after: unknown[] | undefined;
    for (;;) {
      const page = await this.#search(
        {
          size: PAGE,
          query: { bool: { filter: [...namespaceClauses(namespace), ...(only ? [only] : [])] } },
          sort: [{ key: { order: 'asc' } }, { write: { order: 'asc' } }],
          _source: source,
          ...(after && { search_after: after }),
        },
        signal,
      );
      hits.push(...page);
      const last = page.at(-1);
      if (page.length < PAGE || !last?.sort) return hits;
      after = last.sort;
    }
  }

  async #search(body: Query, signal?: AbortSignal): Promise<Hit[]> {
    const response = await this.#searchRequest(body, signal);
    if (isMissingIndex(response)) return [];
    return parsedAnswer(SearchResponse, response).hits.hits;
  }

  /**
   * `client.search({ index, body }, { ignore: [404] })`: an index not created yet (nothing was ever written) holds
   * nothing; any other refusal is an error.
   */
  #searchRequest(body: Query, signal?: AbortSignal): Promise<unknown> {
    return this.#request(
      { method: 'POST', path: `${this.#path}/_search`, querystring: {}, body },
      { ignore: [404] },
      signal,
    );
  }

  /** Writes first, then the deletions of what they replace: a crash between leaves a copy the read rule ignores. */
  async #bulk(writes: readonly unknown[], deletes: readonly string[]): Promise<void> {
    const actions: unknown[][] = [
      ...writes.map((document) => [{ index: {} }, document]),
      ...deletes.map((_id) => [{ delete: { _id } }]),
    ];
    for (let start = 0; start < actions.length; start += BULK_ACTIONS) {
      const body = actions.slice(start, start + BULK_ACTIONS).flat();
      // `client.bulk({ index, body })`: the transport writes `bulkBody` as NDJSON, a line per action and source.
      const response = parsedAnswer(
        BulkResponse,
        await this.#request({
          method: 'PUT',
          path: `${this.#path}/_bulk`,
          querystring: {},
          bulkBody: body as Record<string, unknown>[],
        }),
      );
      if (!response.errors) continue;
      // A copy already deleted (by a concurrent writer's collection) is what was wanted.
      const failed = response.items.flatMap((item) =>
        Object.entries(item).filter(
          ([action, result]) => result.status >= 300 && !(action === 'delete' && result.status === 404),
        ),
      );
      if (failed.length > 0)
        throw new SearchIndexUnavailableError(`The search index refused ${failed.length} of its writes`, {
          cause: failed[0]?.[1].error,
        });
    }
  }

  /**
   * Creates the index with its mapping the first time this process writes; one that exists already is kept, once
   * its mapping is found to be this adapter's. A `knn_vector`'s dimension is fixed when the index is created, so an
   * embedder of other dimensions cannot write to it: that is said once, clearly, and every later write fails with
   * the same error without asking again (a failure to answer is asked again on the next write).
   */
  #ensureIndex(): Promise<void> {
    let permanent = false;
    this.#created ??= (async () => {
      // `client.indices.exists({ index })`: the transport answers a HEAD with true, or false for a 404.
      const exists = await this.#request({ method: 'HEAD', path: this.#path, querystring: {}, body: '' });
      if (exists !== true) {
        // `client.indices.create({ index, body }, { ignore: [400] })`
        const created = await this.#request(
          { method: 'PUT', path: this.#path, querystring: {}, body: searchIndexMapping(this.#dimensions) },
          { ignore: [400] },
        );
        const error = (created as { error?: { type?: string } }).error;
        if (!error) return;
        if (error.type !== 'resource_already_exists_exception')
          throw new SearchIndexUnavailableError('The OpenSearch index could not answer', {
            cause: new TypeError(`The search index could not be created: ${error.type}`),
          });
      }
      // `client.indices.getMapping({ index })`
      const mapping = parsedAnswer(
        MappingResponse,
        await this.#request({ method: 'GET', path: `${this.#path}/_mapping`, querystring: {}, body: '' }),
      );
      const [mapped] = Object.values(mapping);
      if (!mapped) throw new SearchIndexUnavailableError('The OpenSearch index answered without its mapping');
      const mismatch = mappingMismatch(mapped.mappings.properties, this.#dimensions);
      if (mismatch) {
        permanent = true;
        throw new SearchIndexUnavailableError(`The OpenSearch index cannot take these documents: ${mismatch}`);
      }
    })().then(
      () => undefined,
      (error: unknown) => {
        if (!permanent) this.#created = undefined;
        throw error;
      },
    );
    return this.#created;
  }

  /**
   * A request of the index; the transport serialises `body` (JSON) or `bulkBody` (NDJSON) and the querystring. An
   * aborted `signal` aborts it (the transport's own abort), which fails it as unavailable.
   */
  async #request(
    params: TransportRequestParams,
    options?: TransportRequestOptions,
    signal?: AbortSignal,
  ): Promise<unknown> {
    if (signal?.aborted) throw new SearchIndexUnavailableError('The OpenSearch index did not answer in time');
    const pending = this.#transport.request(params, options);
    // Returns nothing: an EventTarget reports the rejection of a listener's thenable (abort() returns the request) as
    // an uncaught exception, though the request's own rejection is handled below.
    const abort = () => {
      pending.abort();
    };
    signal?.addEventListener('abort', abort);
    try {
      return (await pending).body;
    } catch (error) {
      throw new SearchIndexUnavailableError('The OpenSearch index could not answer', { cause: error });
    } finally {
      signal?.removeEventListener('abort', abort);
    }
  }
}

/** An answer of the service in the shape `schema` expects, or the index is unavailable (search falls back). */
const parsedAnswer = <T extends z.ZodType>(schema: T, answer: unknown): z.infer<T> => {
  const parsed = schema.safeParse(answer);
  if (!parsed.success)
    throw new SearchIndexUnavailableError('The OpenSearch index answered in an unexpected shape', {
      cause: parsed.error,
    });
  return parsed.data;
};

/** What an existing index maps differently from `searchIndexMapping(dimensions)`, in a phrase; none if nothing. */
const mappingMismatch = (
  properties: Readonly<
    Record<string, { type?: string | undefined; dimension?: number | undefined; analyzer?: string | undefined }>
  >,
  dimensions: number,
): string | undefined => {
  const { vector, terms } = properties;
  if (vector?.type !== 'knn_vector' || vector.dimension !== dimensions)
    return `its vector field has ${vector?.dimension ?? 'no'} dimensions where the embedder gives ${dimensions}`;
  if (terms?.type !== 'text' || terms.analyzer !== WHITESPACE)
    return 'it has no whitespace-analysed terms field (it was created by an older version of this adapter)';
  return undefined;
};

const isMissingIndex = (body: unknown): boolean =>
  (body as { error?: { type?: string } } | undefined)?.error?.type === 'index_not_found_exception';

const keyOf = (namespace: Namespace, id: string): string => `${namespace.hash}:${id}`;

const keyOfHit = (hit: Hit): string => String(hit._source?.key ?? '');

const edgeOf = (type: string, value: string): string => `${type}${EDGE_SEPARATOR}${value}`;

/** The clause every request of this index starts from: the namespace's hash, never its key. */
const namespaceClauses = (namespace: Namespace): Query[] => [{ term: { namespace: namespace.hash } }];

const filterClauses = (filter: SearchFilter): Query[] => [
  ...(filter.kinds ? [{ terms: { kind: [...filter.kinds] } }] : []),
  ...(filter.tags ?? []).map((tag) => ({ term: { tags: tag } })),
  ...(filter.states ? [{ terms: { states: [...filter.states] } }] : []),
  ...(filter.since !== undefined || filter.until !== undefined
    ? [
        {
          range: {
            updatedAt: {
              ...(filter.since !== undefined && { gte: filter.since }),
              ...(filter.until !== undefined && { lt: filter.until }),
            },
          },
        },
      ]
    : []),
];

const storedOfChange = (
  namespace: Namespace,
  change: IndexChange,
  analyze: (text: string) => readonly string[],
): Record<string, unknown> => {
  const base = {
    namespace: namespace.hash,
    key: keyOf(namespace, idOfChange(change)),
    id: idOfChange(change),
    revision: revisionOfChange(change),
    write: randomUUID(),
  };
  if (change.type === 'remove') return { ...base, removed: true };
  const { document } = change;
  return {
    ...base,
    removed: false,
    kind: document.kind,
    createdAt: document.createdAt,
    updatedAt: document.updatedAt,
    expiresAt: document.expiresAt,
    terms: termsOf(namespace, analyze(document.text)).join(' '),
    states: document.states,
    tags: document.tags,
    edges: [
      ...document.tags.map((tag) => edgeOf(TAG_EDGE, tag)),
      ...Object.entries(document.edges).flatMap(([type, values]) => values.map((value) => edgeOf(type, value))),
    ],
    graph: document.edges,
    // k-NN (≥ 2.13) refuses a zero vector in a cosinesimil field: such a document has no vector, as if unembedded.
    ...(document.vector &&
      hasDirection(document.vector) && { vector: document.vector, ...(document.model && { model: document.model }) }),
  };
};

/** Whether cosine similarity is defined for `vector`: its norm is not 0. */
const hasDirection = (vector: ArrayLike<number>): boolean => {
  for (let dimension = 0; dimension < vector.length; dimension += 1) if (vector[dimension] !== 0) return true;
  return false;
};

/**
 * The namespace's salt: opaque (a digest of the namespace's hash, itself a digest of the key), the same for every
 * process, distinct between namespaces but for a 2^-32 chance per pair, whose documents would then share terms'
 * document frequencies and nothing else (the namespace filter still keeps every hit to its namespace).
 */
const saltOf = (namespace: Namespace): string =>
  createHash('sha256').update('memory-hub/search-terms/').update(namespace.hash).digest('hex').slice(0, SALT_LENGTH);

/**
 * A text's terms as the embedded index analyses it, each prefixed by the namespace's salt, so that a term's
 * document frequency in the index counts its namespace's documents only. A term the whitespace tokenizer would
 * split (longer than its maximum) is replaced by its digest, still one term.
 */
const termsOf = (namespace: Namespace, terms: readonly string[]): string[] => {
  const salt = saltOf(namespace);
  return terms.map((term) => {
    const salted = `${salt}${term}`;
    return salted.length <= MAX_TOKEN_LENGTH ? salted : `${salt}#${createHash('sha256').update(term).digest('hex')}`;
  });
};

const searchDocumentOf = (stored: StoredDocument): Omit<SearchDocument, 'text'> => ({
  id: stored.id,
  kind: stored.kind ?? '',
  revision: stored.revision,
  createdAt: stored.createdAt ?? '',
  updatedAt: stored.updatedAt ?? '',
  expiresAt: stored.expiresAt ?? '',
  states: stored.states ?? [],
  tags: stored.tags ?? [],
  edges: stored.graph ?? {},
  ...(stored.vector && { vector: stored.vector }),
  ...(stored.model && { model: stored.model }),
});

/** The query's edge values the document has, by type, in the query's order (tags as the `tag` type). */
const sharedEdges = (
  stored: StoredDocument,
  edges: Readonly<Record<string, readonly string[]>>,
): Record<string, string[]> => {
  const has = (type: string, value: string) =>
    type === TAG_EDGE ? (stored.tags ?? []).includes(value) : (stored.graph?.[type] ?? []).includes(value);
  const shared: Record<string, string[]> = {};
  for (const [type, values] of Object.entries(edges)) {
    const matched = [...new Set(values)].filter((value) => has(type, value));
    if (matched.length > 0) shared[type] = matched;
  }
  return shared;
};

const groupByKey = (copies: readonly HeldCopy[]): Map<string, HeldCopy[]> => {
  const byKey = new Map<string, HeldCopy[]>();
  for (const copy of copies) byKey.set(copy.key, [...(byKey.get(copy.key) ?? []), copy]);
  return byKey;
};

const newestCopy = (copies: readonly HeldCopy[]): HeldCopy | undefined =>
  copies.reduce<HeldCopy | undefined>(
    (newest, copy) => (!newest || compareVersions(copy, newest) > 0 ? copy : newest),
    undefined,
  );
