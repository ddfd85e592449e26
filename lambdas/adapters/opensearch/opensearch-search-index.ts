import { randomUUID } from 'node:crypto';
import type {
  ApiResponse,
  TransportRequestOptions,
  TransportRequestParams,
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

/** The keyword leg's scoring is Lucene's BM25 (see the mapping below); the service normalises by the top score. */
const ENGLISH = 'english';
const EDGE_SEPARATOR = '\u0000';
const TAG_EDGE = 'tag';
/** More than a leg's limit is asked for, so that copies a newer revision outlived do not leave it short. */
const SLACK = 10;
const PAGE = 1000;
const BULK_ACTIONS = 500;

/**
 * What this index sends its requests through: the official client's transport, the method every `Client` API method
 * calls. The requests are the ones those methods build (api/_core/search.js, bulk.js, api/indices/exists.js,
 * create.js in the package), which a test holds them to; the client itself, every endpoint of the API, stays out of
 * the bundle.
 */
export interface OpenSearchTransport {
  request(params: TransportRequestParams, options?: TransportRequestOptions): Promise<ApiResponse>;
}

export interface OpenSearchSearchIndexOptions {
  /** A transport to the collection's endpoint, signing with SigV4 for service `aoss` (see opensearch-transport.ts). */
  readonly transport: OpenSearchTransport;
  /** The deployment's index in the collection. */
  readonly index: string;
  /** The embedder's dimensions: the `knn_vector` field's. */
  readonly dimensions: number;
}

/**
 * The index's mapping. `dynamic: strict` refuses any field not named here. Keyword fields filter; `text` is read by
 * the english analyzer and scored by the default similarity, Lucene's BM25 (k1 = 1.2, b = 0.75): it has no (k1 + 1)
 * factor, which the top-score normalisation cancels, and its k1 is 1.2 where the embedded index uses 1.5 — custom
 * similarity settings are not among what Serverless documents as supported, so none is set. The vector is HNSW on
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
        text: { type: 'text', analyzer: ENGLISH },
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
  #created: Promise<void> | undefined;

  constructor(options: OpenSearchSearchIndexOptions) {
    this.#transport = options.transport;
    this.#path = `/${encodeURIComponent(options.index)}`;
    this.#dimensions = options.dimensions;
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
        writes.push(storedOfChange(namespace, change));
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
    const writes: unknown[] = [];
    const deletes: string[] = [];
    for (const key of new Set([...held.keys(), ...rebuilt.keys()])) {
      const copies = held.get(key) ?? [];
      const change = rebuilt.get(key);
      const kept = change && copies.find((copy) => compareVersions(copy, versionOfChange(change)) === 0);
      if (change && !kept) writes.push(storedOfChange(namespace, change));
      deletes.push(...copies.filter((copy) => copy !== kept).map((copy) => copy._id));
    }
    await this.#bulk(writes, deletes);
  }

  async candidates(namespace: Namespace, query: CandidateQuery): Promise<CandidateSet> {
    const filter = [...namespaceClauses(namespace), { term: { removed: false } }, ...filterClauses(query.filter)];
    const [keyword, semantic, recent, related, documents] = await Promise.all([
      query.keyword &&
        this.#search({
          size: query.keyword.limit + SLACK,
          query: { bool: { filter, must: [{ match: { text: { query: query.keyword.text } } }] } },
          sort: [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }],
          _source: ['key', 'revision'],
        }),
      query.semantic &&
        this.#search({
          size: query.semantic.limit + SLACK,
          query: {
            knn: {
              vector: {
                vector: query.semantic.vector,
                k: query.semantic.limit + SLACK,
                filter: { bool: { filter: [...filter, { term: { model: query.semantic.model } }] } },
              },
            },
          },
          _source: ['key', 'revision'],
        }),
      query.recent &&
        this.#search({
          size: query.recent.limit + SLACK,
          query: { bool: { filter } },
          sort: [{ updatedAt: { order: 'desc' } }, { id: { order: 'desc' } }],
          _source: ['key', 'revision'],
        }),
      query.related && this.#related(filter, query.related.edges, query.related.limit),
      this.#count(namespace),
    ]);
    const legs = [keyword, semantic, recent, related].filter((hits): hits is Hit[] => hits !== undefined);
    const keys = new Set(legs.flatMap((hits) => hits.map((hit) => keyOfHit(hit))));
    const current = await this.#current(namespace, [...keys]);
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
    for (const { hit, document } of currentHits(semantic, query.semantic?.limit ?? 0))
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
  #related(filter: Query[], edges: Readonly<Record<string, readonly string[]>>, limit: number): Promise<Hit[]> {
    const values = Object.entries(edges).flatMap(([type, list]) =>
      [...new Set(list)].map((value) => edgeOf(type, value)),
    );
    if (values.length === 0) return Promise.resolve([]);
    return this.#search({
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
    });
  }

  async #count(namespace: Namespace): Promise<number> {
    const response = await this.#searchRequest({
      size: 0,
      track_total_hits: true,
      query: { bool: { filter: [...namespaceClauses(namespace), { term: { removed: false } }] } },
    });
    if (isMissingIndex(response)) return 0;
    return SearchResponse.parse(response).hits.total?.value ?? 0;
  }

  /** The current state of each key: its newest copy when that is a live document; none for a removed one. */
  async #current(namespace: Namespace, keys: readonly string[]): Promise<Map<string, StoredDocument>> {
    const current = new Map<string, StoredDocument>();
    if (keys.length === 0) return current;
    const newest = new Map<string, StoredDocument>();
    for (const hit of await this.#all(namespace, { terms: { key: keys } }, true)) {
      const document = StoredDocument.parse(hit._source);
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
      const { key, revision, removed } = StoredDocument.pick({ key: true, revision: true, removed: true }).parse(
        hit._source,
      );
      return { _id: hit._id, key, revision, removed };
    });
  }

  /** Every hit of a filter in the namespace, paged by (key, write), which no two copies share. */
  async #all(namespace: Namespace, only: Query | undefined, source: boolean | string[]): Promise<Hit[]> {
    const hits: Hit[] = [];
    let after: unknown[] | undefined;
    for (;;) {
      const page = await this.#search({
        size: PAGE,
        query: { bool: { filter: [...namespaceClauses(namespace), ...(only ? [only] : [])] } },
        sort: [{ key: { order: 'asc' } }, { write: { order: 'asc' } }],
        _source: source,
        ...(after && { search_after: after }),
      });
      hits.push(...page);
      const last = page.at(-1);
      if (page.length < PAGE || !last?.sort) return hits;
      after = last.sort;
    }
  }

  async #search(body: Query): Promise<Hit[]> {
    const response = await this.#searchRequest(body);
    if (isMissingIndex(response)) return [];
    return SearchResponse.parse(response).hits.hits;
  }

  /**
   * `client.search({ index, body }, { ignore: [404] })`: an index not created yet (nothing was ever written) holds
   * nothing; any other refusal is an error.
   */
  #searchRequest(body: Query): Promise<unknown> {
    return this.#request({ method: 'POST', path: `${this.#path}/_search`, querystring: {}, body }, { ignore: [404] });
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
      const response = BulkResponse.parse(
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

  /** Creates the index with its mapping the first time this process writes; one that exists already is kept. */
  #ensureIndex(): Promise<void> {
    this.#created ??= (async () => {
      // `client.indices.exists({ index })`: the transport answers a HEAD with true, or false for a 404.
      const exists = await this.#request({ method: 'HEAD', path: this.#path, querystring: {}, body: '' });
      if (exists === true) return;
      // `client.indices.create({ index, body }, { ignore: [400] })`
      const created = await this.#request(
        { method: 'PUT', path: this.#path, querystring: {}, body: searchIndexMapping(this.#dimensions) },
        { ignore: [400] },
      );
      const error = (created as { error?: { type?: string } }).error;
      if (error && error.type !== 'resource_already_exists_exception')
        throw new SearchIndexUnavailableError('The OpenSearch index could not answer', {
          cause: new TypeError(`The search index could not be created: ${error.type}`),
        });
    })().then(
      () => undefined,
      (error: unknown) => {
        this.#created = undefined;
        throw error;
      },
    );
    return this.#created;
  }

  /** A request of the index; the transport serialises `body` (JSON) or `bulkBody` (NDJSON) and the querystring. */
  async #request(params: TransportRequestParams, options?: TransportRequestOptions): Promise<unknown> {
    try {
      return (await this.#transport.request(params, options)).body;
    } catch (error) {
      throw new SearchIndexUnavailableError('The OpenSearch index could not answer', { cause: error });
    }
  }
}

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

const storedOfChange = (namespace: Namespace, change: IndexChange): Record<string, unknown> => {
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
    text: document.text,
    states: document.states,
    tags: document.tags,
    edges: [
      ...document.tags.map((tag) => edgeOf(TAG_EDGE, tag)),
      ...Object.entries(document.edges).flatMap(([type, values]) => values.map((value) => edgeOf(type, value))),
    ],
    graph: document.edges,
    ...(document.vector && { vector: document.vector }),
    ...(document.model && { model: document.model }),
  };
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
