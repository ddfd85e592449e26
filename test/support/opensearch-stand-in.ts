import { randomUUID } from 'node:crypto';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { Client, Connection, errors } from '@opensearch-project/opensearch';
import type { ApiResponse } from '@opensearch-project/opensearch/lib/Transport.js';
import {
  OpenSearchSearchIndex,
  type OpenSearchTransport,
} from '../../lambdas/adapters/opensearch/opensearch-search-index.ts';
import { openSearchTransport } from '../../lambdas/adapters/opensearch/opensearch-transport.ts';
import { BM25_B, BM25_K1 } from '../../lambdas/capabilities/retrieval/ranking/keyword-index.ts';
import { analyze } from '../../lambdas/capabilities/retrieval/ranking/text-analysis.ts';
import { ExactNearestNeighbours } from '../../lambdas/capabilities/retrieval/ranking/vector-search.ts';

/*
 * A stand-in for an OpenSearch Serverless vector search collection, behind the official client's `Connection`: the
 * transport builds (and, with AwsSigv4Signer's connection, signs) every request as it would for the network, and this
 * answers it from memory in OpenSearch's response shapes. It executes only what the adapter needs and what the
 * service accepts on a VECTORSEARCH collection; anything else is refused (recorded in `refusals`, answered 400), so
 * the adapter cannot come to rely on it:
 * - index/create with a client-chosen `_id`, `update`, scripts, `_refresh`, `_delete_by_query`: refused, as the
 *   service refuses them on this collection type;
 * - writes become searchable at a refresh: after each request by default (the refresh interval has passed between
 *   calls), or only when `refresh()` is called (`refresh: 'manual'`); deletes by `_id` apply at once, as Lucene's;
 * - `match` scores with Lucene's BM25 (no (k1 + 1) factor) with the project's k1 and b (keyword-index.ts), from
 *   the field's statistics over every searchable document of the index — document count, average length and each
 *   term's document frequency are the index's, not a namespace's, as Lucene's are the shard's; a `whitespace` field
 *   is split on white space, an `english` one read by the project's analysis, standing in for Lucene's;
 * - `knn` is exact (vector-search.ts) inside its filter, scored (1 + cos) / 2 as Faiss's cosinesimil; a vector of
 *   the wrong dimension, or a zero vector in a cosinesimil field, is refused at indexing and in a query, as k-NN
 *   (≥ 2.13) refuses them;
 * - `answerInstead` lets a test answer a request itself (a malformed body, say) or never answer it (`'stall'`): the
 *   connection then times out after the transport's request timeout, as the real one does.
 */

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly querystring: string;
  readonly headers: Readonly<Record<string, unknown>>;
  /** JSON bodies parsed; NDJSON bodies as the list of their lines, parsed. */
  readonly body: unknown;
  /** The body as it was sent. */
  readonly rawBody: string | undefined;
  /** The request timeout the transport gave the connection, in milliseconds. */
  readonly timeout: number | undefined;
}

type Source = Record<string, unknown>;
type Query = Record<string, unknown>;

interface MappedField {
  readonly type?: string;
  readonly dimension?: number;
  readonly analyzer?: string;
  readonly method?: { readonly name?: string; readonly engine?: string; readonly space_type?: string };
}

/** A test's answer to a request in place of the stand-in's, or `'stall'` for none at all. */
export type AnswerInstead = (request: RecordedRequest) => { status: number; body: unknown } | 'stall' | undefined;

interface StoredIndex {
  readonly mapping: { readonly properties: Record<string, MappedField> };
  /** Searchable documents, by `_id`. */
  readonly visible: Map<string, Source>;
  /** Written since the last refresh: a source, or null for a deletion. */
  readonly pending: Map<string, Source | null>;
}

class Refused extends Error {}

/** Connection gives its errors no response; the transport sets `meta` on them itself. */
const NO_META = undefined as unknown as ApiResponse;
const STAND_IN_ENDPOINT = 'https://collection.eu-west-1.aoss.amazonaws.com';
const SUPPORTED_SPACES = ['l2', 'innerproduct', 'cosinesimil'];
const MAX_RESULT_WINDOW = 10_000;
const MAX_DIMENSIONS = 16_000;
/** The built-in analyzers a mapping here may name (https://docs.opensearch.org/latest/analyzers/supported-analyzers/). */
const ANALYZERS: Readonly<Record<string, (text: string) => string[]>> = {
  whitespace: (text) => text.split(/\s+/u).filter((token) => token !== ''),
  english: (text) => analyze(text),
};

export class OpenSearchStandIn {
  readonly requests: RecordedRequest[] = [];
  readonly refusals: string[] = [];
  /** Consulted for every request after it is recorded: what it returns is answered instead. */
  answerInstead: AnswerInstead | undefined;
  readonly #indices = new Map<string, StoredIndex>();
  readonly #refresh: 'every-request' | 'manual';

  constructor(options: { readonly refresh?: 'every-request' | 'manual' } = {}) {
    this.#refresh = options.refresh ?? 'every-request';
  }

  /** The transport the Lambdas build (opensearch-transport.ts), sending to the stand-in unsigned. */
  transport(): OpenSearchTransport {
    return openSearchTransport({
      endpoint: STAND_IN_ENDPOINT,
      region: 'eu-west-1',
      credentials: async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }),
      connection: () => this.connection(),
    });
  }

  /** The official client of the stand-in, unsigned: what the transport's requests are compared with. */
  client(options: { readonly requestTimeout?: number; readonly maxRetries?: number } = {}): Client {
    return new Client({ node: STAND_IN_ENDPOINT, Connection: this.connection(), ...options });
  }

  /** A `Connection` class that answers from the stand-in; `base` builds the request (e.g. the SigV4 signer's). */
  connection(base: typeof Connection = Connection): typeof Connection {
    const standIn = this;
    class StandInConnection extends base {
      override request(
        params: Parameters<Connection['request']>[0],
        callback: Parameters<Connection['request']>[1],
      ): ClientRequest {
        const built = this.buildRequestObject(params) as { headers?: Record<string, unknown> };
        const answer = standIn.#answer({
          method: String(params.method),
          path: String(params.path),
          querystring: params.querystring ?? '',
          headers: built.headers ?? {},
          body: typeof params.body === 'string' ? params.body : params.body?.toString(),
          timeout: params.timeout,
        });
        if (answer === 'stall') {
          // What Connection does when nothing answers: a TimeoutError after the request's timeout, or an abort.
          const timer =
            params.timeout === undefined
              ? undefined
              : setTimeout(() => callback(new errors.TimeoutError('Request timed out', NO_META), null), params.timeout);
          return {
            abort: () => {
              clearTimeout(timer);
              callback(new errors.RequestAbortedError('Request aborted'), null);
            },
          } as unknown as ClientRequest;
        }
        const payload = params.method === 'HEAD' ? '' : JSON.stringify(answer.body);
        const response = new PassThrough() as unknown as IncomingMessage & PassThrough;
        response.statusCode = answer.status;
        response.headers = {
          'content-type': 'application/json; charset=UTF-8',
          'content-length': String(Buffer.byteLength(payload)),
        };
        process.nextTick(() => {
          callback(null, response);
          response.end(payload);
        });
        return { abort: () => {} } as unknown as ClientRequest;
      }
    }
    return StandInConnection;
  }

  /** Makes every write so far searchable, as the collection's refresh interval does. */
  refresh(): void {
    for (const index of this.#indices.values()) {
      for (const [id, source] of index.pending) {
        if (source) index.visible.set(id, source);
        else index.visible.delete(id);
      }
      index.pending.clear();
    }
  }

  /** Every document the index holds, searchable or not yet, by `_id`. */
  documents(index: string): Map<string, Source> {
    const held = this.#indices.get(index);
    const all = new Map(held?.visible);
    for (const [id, source] of held?.pending ?? []) {
      if (source) all.set(id, source);
      else all.delete(id);
    }
    return all;
  }

  #answer(request: {
    method: string;
    path: string;
    querystring: string;
    headers: Record<string, unknown>;
    body?: string;
    timeout: number | undefined;
  }): { status: number; body: unknown } | 'stall' {
    if (this.#refresh === 'every-request') this.refresh();
    const ndjson = request.path.endsWith('/_bulk');
    const body = request.body ? (ndjson ? parseNdjson(request.body) : JSON.parse(request.body)) : undefined;
    const recorded = { ...request, body, rawBody: request.body };
    this.requests.push(recorded);
    const instead = this.answerInstead?.(recorded);
    if (instead !== undefined) return instead;
    try {
      return this.#route(request.method, request.path, body);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      this.refusals.push(`${request.method} ${request.path}: ${error.message}`);
      return {
        status: 400,
        body: { error: { type: 'illegal_argument_exception', reason: error.message }, status: 400 },
      };
    }
  }

  #route(method: string, path: string, body: unknown): { status: number; body: unknown } {
    const [name, action, ...rest] = path.split('/').filter(Boolean);
    if (!name || rest.length > 0) throw new Refused(`no such endpoint`);
    if (action === undefined) {
      if (method === 'HEAD') return { status: this.#indices.has(name) ? 200 : 404, body: {} };
      if (method === 'PUT') return this.#create(name, body as Query);
      throw new Refused(`${method} on an index`);
    }
    const index = this.#indices.get(name);
    if (!index) return { status: 404, body: { error: { type: 'index_not_found_exception' }, status: 404 } };
    if (action === '_bulk' && (method === 'POST' || method === 'PUT'))
      return { status: 200, body: this.#bulk(name, index, body as Query[]) };
    if (action === '_search' && (method === 'POST' || method === 'GET'))
      return { status: 200, body: this.#search(index, (body ?? {}) as Query) };
    if (action === '_mapping' && method === 'GET')
      return { status: 200, body: { [name]: { mappings: structuredClone(index.mapping) } } };
    throw new Refused(`${action} is not offered here`);
  }

  #create(name: string, body: Query): { status: number; body: unknown } {
    if (this.#indices.has(name))
      return { status: 400, body: { error: { type: 'resource_already_exists_exception' }, status: 400 } };
    const settings = (body.settings ?? {}) as { index?: Record<string, unknown> };
    for (const setting of Object.keys(settings.index ?? {}))
      if (setting !== 'knn' && setting !== 'knn.algo_param.ef_search') throw new Refused(`setting index.${setting}`);
    const mappings = body.mappings as StoredIndex['mapping'];
    for (const [field, property] of Object.entries(mappings.properties)) {
      if (property.type === 'text' && property.analyzer !== undefined && !(property.analyzer in ANALYZERS))
        throw new Refused(`${field}: analyzer ${property.analyzer}`);
      if (property.type !== 'knn_vector') continue;
      const { method, dimension } = property;
      if (settings.index?.knn !== true) throw new Refused('a knn_vector field in an index without index.knn');
      if (method?.engine !== 'faiss' || method.name !== 'hnsw' || !SUPPORTED_SPACES.includes(method.space_type ?? ''))
        throw new Refused(`${field}: only Faiss HNSW is offered with filtered search`);
      if (!Number.isInteger(dimension) || (dimension ?? 0) < 1 || (dimension ?? 0) > MAX_DIMENSIONS)
        throw new Refused(`${field}: dimension ${dimension}`);
    }
    this.#indices.set(name, { mapping: mappings, visible: new Map(), pending: new Map() });
    return { status: 200, body: { acknowledged: true, index: name } };
  }

  #bulk(name: string, index: StoredIndex, lines: Query[]) {
    const items: Query[] = [];
    const held = () => this.documents(name);
    for (let line = 0; line < lines.length; line += 1) {
      const [[action, meta] = []] = Object.entries(lines[line] ?? {}) as [string, { _id?: string }][];
      if (action === 'index' || action === 'create') {
        const source = lines[++line] as Source;
        if (meta?._id !== undefined) {
          items.push({
            [action]: {
              _index: name,
              _id: meta._id,
              status: 400,
              error: {
                type: 'illegal_argument_exception',
                reason: 'Document ID is not supported in create/index operation request',
              },
            },
          });
          continue;
        }
        const unmapped = Object.keys(source).find((field) => !(field in index.mapping.properties));
        if (unmapped !== undefined) {
          items.push({ [action]: { _index: name, status: 400, error: { type: 'strict_dynamic_mapping_exception' } } });
          continue;
        }
        const badVector = Object.entries(index.mapping.properties)
          .filter(([field, property]) => property.type === 'knn_vector' && source[field] !== undefined)
          .map(([field, property]) => vectorRefusal(property, source[field]))
          .find((reason) => reason !== undefined);
        if (badVector !== undefined) {
          items.push({
            [action]: { _index: name, status: 400, error: { type: 'mapper_parsing_exception', reason: badVector } },
          });
          continue;
        }
        const _id = randomUUID().replaceAll('-', '').slice(0, 20);
        index.pending.set(_id, structuredClone(source));
        items.push({ [action]: { _index: name, _id, status: 201, result: 'created' } });
      } else if (action === 'delete' && meta?._id !== undefined) {
        const found = held().has(meta._id);
        // A delete by `_id` is real-time: it takes the document out of searches now, refreshed or not.
        if (found) {
          index.pending.set(meta._id, null);
          index.visible.delete(meta._id);
        }
        items.push({
          delete: { _index: name, _id: meta._id, status: found ? 200 : 404, result: found ? 'deleted' : 'not_found' },
        });
      } else throw new Refused(`bulk action ${action}`);
    }
    return {
      took: 1,
      errors: items.some((item) => Object.values(item).some((result) => (result as { status: number }).status >= 300)),
      items,
    };
  }

  #search(index: StoredIndex, body: Query) {
    for (const key of Object.keys(body))
      if (!['query', 'size', 'sort', '_source', 'search_after', 'track_total_hits'].includes(key))
        throw new Refused(`search option ${key}`);
    const size = (body.size as number | undefined) ?? 10;
    if (size > MAX_RESULT_WINDOW) throw new Refused('Result window is too large');
    const query = (body.query ?? { match_all: {} }) as Query;
    const scored = query.knn ? this.#knn(index, query.knn as Query) : this.#evaluate(index, query);
    const sort = sortOf(body.sort);
    const hits = [...scored.entries()].map(([_id, score]) => {
      const source = index.visible.get(_id) as Source;
      return {
        _id,
        score,
        source,
        values: sort.map(({ field }) => (field === '_score' ? score : sortValue(source[field]))),
      };
    });
    if (sort.length > 0)
      hits.sort((a, b) => {
        for (const [position, { order }] of sort.entries()) {
          const compared = compareSortValues(a.values[position], b.values[position]);
          if (compared !== 0) return order === 'asc' ? compared : -compared;
        }
        return 0;
      });
    const after = body.search_after as unknown[] | undefined;
    const from = after
      ? hits.filter((hit) => {
          for (const [position, { order }] of sort.entries()) {
            const compared = compareSortValues(hit.values[position], after[position]);
            if (compared !== 0) return order === 'asc' ? compared > 0 : compared < 0;
          }
          return false;
        })
      : hits;
    const page = from.slice(0, size);
    const total = body.track_total_hits === true ? hits.length : Math.min(hits.length, MAX_RESULT_WINDOW);
    return {
      took: 1,
      timed_out: false,
      _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
      hits: {
        total: { value: total, relation: 'eq' },
        max_score: page.length > 0 ? Math.max(...page.map((hit) => hit.score)) : null,
        hits: page.map((hit) => ({
          _index: 'index',
          _id: hit._id,
          _score: hit.score,
          _source: sourceFiltered(hit.source, body._source),
          ...(sort.length > 0 && { sort: hit.values }),
        })),
      },
    };
  }

  #knn(index: StoredIndex, knn: Query): Map<string, number> {
    const [[field, spec] = []] = Object.entries(knn) as [string, { vector: number[]; k: number; filter?: Query }][];
    const property = field ? index.mapping.properties[field] : undefined;
    const dimensions = property?.dimension;
    if (!field || !spec || !property || dimensions === undefined)
      throw new Refused('knn on a field that is not a knn_vector');
    const refusal = vectorRefusal(property, spec.vector);
    if (refusal !== undefined) throw new Refused(`knn query: ${refusal}`);
    const allowed = spec.filter
      ? this.#evaluate(index, spec.filter)
      : new Map([...index.visible.keys()].map((id) => [id, 0]));
    const vectors = new ExactNearestNeighbours({ dimensions });
    for (const id of allowed.keys()) {
      const vector = index.visible.get(id)?.[field];
      if (Array.isArray(vector)) vectors.upsert(id, vector as number[]);
    }
    return new Map(vectors.nearest(spec.vector, spec.k).map((neighbour) => [neighbour.id, neighbour.similarity]));
  }

  /** The documents a query matches, with their scores (0 in filter context). */
  #evaluate(index: StoredIndex, query: Query): Map<string, number> {
    const [[type, spec] = []] = Object.entries(query);
    const all = () => new Map([...index.visible.keys()].map((id) => [id, 0]));
    const where = (test: (source: Source) => boolean) =>
      new Map([...index.visible].filter(([, source]) => test(source)).map(([id]) => [id, 0]));
    switch (type) {
      case 'match_all':
        return all();
      case 'term': {
        const [[field, value] = []] = Object.entries(spec as Query);
        const wanted = typeof value === 'object' && value !== null ? (value as { value: unknown }).value : value;
        return where((source) => valuesOf(source, field).includes(wanted));
      }
      case 'terms': {
        const [[field, values] = []] = Object.entries(spec as Query);
        return where((source) => valuesOf(source, field).some((value) => (values as unknown[]).includes(value)));
      }
      case 'range': {
        const [[field, bounds] = []] = Object.entries(spec as Query) as [string, Record<string, string | number>][];
        const at = (value: unknown) => (typeof value === 'number' ? value : Date.parse(String(value)));
        return where((source) =>
          valuesOf(source, field).some((value) => {
            const v = at(value);
            return (
              (bounds?.gte === undefined || v >= at(bounds.gte)) &&
              (bounds?.gt === undefined || v > at(bounds.gt)) &&
              (bounds?.lte === undefined || v <= at(bounds.lte)) &&
              (bounds?.lt === undefined || v < at(bounds.lt))
            );
          }),
        );
      }
      case 'constant_score': {
        const { filter, boost = 1 } = spec as { filter: Query; boost?: number };
        return new Map([...this.#evaluate(index, filter).keys()].map((id) => [id, boost]));
      }
      case 'match':
        return this.#match(index, spec as Query);
      case 'bool':
        return this.#bool(index, spec as Query);
      default:
        throw new Refused(`query ${type}`);
    }
  }

  #bool(index: StoredIndex, spec: Query): Map<string, number> {
    const list = (clauses: unknown) =>
      (clauses === undefined ? [] : Array.isArray(clauses) ? clauses : [clauses]) as Query[];
    for (const key of Object.keys(spec))
      if (!['filter', 'must', 'should', 'must_not', 'minimum_should_match'].includes(key))
        throw new Refused(`bool ${key}`);
    let result = new Map([...index.visible.keys()].map((id) => [id, 0]));
    for (const clause of [...list(spec.filter), ...list(spec.must)]) {
      const scored = this.#evaluate(index, clause);
      const scoring = list(spec.must).includes(clause);
      result = new Map(
        [...result]
          .filter(([id]) => scored.has(id))
          .map(([id, score]) => [id, score + (scoring ? (scored.get(id) ?? 0) : 0)]),
      );
    }
    for (const clause of list(spec.must_not)) {
      const excluded = this.#evaluate(index, clause);
      result = new Map([...result].filter(([id]) => !excluded.has(id)));
    }
    const should = list(spec.should);
    if (should.length > 0) {
      const minimum =
        (spec.minimum_should_match as number | undefined) ??
        (list(spec.filter).length + list(spec.must).length === 0 ? 1 : 0);
      const scoredShould = should.map((clause) => this.#evaluate(index, clause));
      result = new Map(
        [...result]
          .map(([id, score]): [string, number, number] => {
            const matched = scoredShould.filter((scored) => scored.has(id));
            return [id, score + matched.reduce((sum, scored) => sum + (scored.get(id) ?? 0), 0), matched.length];
          })
          .filter(([, , matched]) => matched >= minimum)
          .map(([id, score]) => [id, score]),
      );
    }
    return result;
  }

  /**
   * Lucene's BM25 of a `match` (its terms OR-ed, a repeated term counted again), from the field's statistics over
   * the whole index: N the documents with a term in the field, avgdl their mean length, df(t) those holding t.
   */
  #match(index: StoredIndex, spec: Query): Map<string, number> {
    const [[field, options] = []] = Object.entries(spec);
    const property = field ? index.mapping.properties[field] : undefined;
    if (!field || property?.type !== 'text') throw new Refused('match on a field that is not text');
    const tokensOf = ANALYZERS[property.analyzer ?? 'english'];
    if (!tokensOf) throw new Refused(`analyzer ${property.analyzer}`);
    const text = typeof options === 'string' ? options : String((options as { query: string }).query);
    const documents = new Map<string, Map<string, number>>();
    const lengths = new Map<string, number>();
    const frequencies = new Map<string, number>();
    for (const [id, source] of index.visible) {
      const value = source[field];
      const tokens = typeof value === 'string' ? tokensOf(value) : [];
      if (tokens.length === 0) continue;
      const counts = new Map<string, number>();
      for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
      for (const token of counts.keys()) frequencies.set(token, (frequencies.get(token) ?? 0) + 1);
      documents.set(id, counts);
      lengths.set(id, tokens.length);
    }
    const count = documents.size;
    const averageLength = [...lengths.values()].reduce((sum, length) => sum + length, 0) / count;
    const scores = new Map<string, number>();
    for (const term of tokensOf(text)) {
      const frequency = frequencies.get(term) ?? 0;
      if (frequency === 0) continue;
      const idf = Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
      for (const [id, counts] of documents) {
        const tf = counts.get(term) ?? 0;
        if (tf === 0) continue;
        const norm = BM25_K1 * (1 - BM25_B + (BM25_B * (lengths.get(id) ?? 0)) / averageLength);
        scores.set(id, (scores.get(id) ?? 0) + (idf * tf) / (tf + norm));
      }
    }
    return scores;
  }
}

/** Why k-NN refuses `vector` for the field, or nothing when it takes it. */
const vectorRefusal = (property: MappedField, vector: unknown): string | undefined => {
  if (!Array.isArray(vector) || !vector.every((value) => typeof value === 'number' && Number.isFinite(value)))
    return 'a vector is an array of finite numbers';
  if (vector.length !== property.dimension)
    return `Vector dimension mismatch. Expected: ${property.dimension}, Given: ${vector.length}`;
  if (property.method?.space_type === 'cosinesimil' && vector.every((value) => value === 0))
    return 'zero vector is not supported when space type is [cosinesimil]';
  return undefined;
};

const parseNdjson = (body: string): Query[] =>
  body
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Query);

const valuesOf = (source: Source, field: string | undefined): unknown[] => {
  const value = field === undefined ? undefined : source[field];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
};

const sortOf = (sort: unknown): { field: string; order: 'asc' | 'desc' }[] =>
  ((sort ?? []) as unknown[]).map((entry) => {
    if (typeof entry === 'string') return { field: entry, order: entry === '_score' ? 'desc' : 'asc' };
    const [[field, spec] = []] = Object.entries(entry as Query);
    const order = typeof spec === 'string' ? spec : (spec as { order?: string }).order;
    return { field: field ?? '', order: order === 'asc' ? 'asc' : 'desc' };
  });

/** Dates sort (and come back in `sort`) as epoch milliseconds, as OpenSearch's do. */
const sortValue = (value: unknown): unknown =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : value;

const compareSortValues = (a: unknown, b: unknown): number => {
  if (a === b) return 0;
  if (a === undefined || a === null) return 1;
  if (b === undefined || b === null) return -1;
  return (a as number | string) < (b as number | string) ? -1 : 1;
};

const sourceFiltered = (source: Source, filter: unknown): Source | undefined => {
  if (filter === false) return undefined;
  if (!Array.isArray(filter)) return structuredClone(source);
  return Object.fromEntries(Object.entries(source).filter(([field]) => (filter as string[]).includes(field)));
};

/** The deployment index the tests' adapters write to. */
export const STAND_IN_INDEX = 'memory-hub-search';

/** The adapter as the retrieval functions build it, over `standIn`'s transport (256 dimensions: the default embedder). */
export const openSearchIndexOn = (standIn: OpenSearchStandIn, dimensions = 256): OpenSearchSearchIndex =>
  new OpenSearchSearchIndex({ transport: standIn.transport(), index: STAND_IN_INDEX, dimensions, analyze });
