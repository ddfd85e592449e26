import { ValidationFailedError } from '../../../kernel/errors/domain-error.ts';
import type { Scope } from '../../../kernel/identity/scope.ts';
import type { Namespace } from '../../../kernel/namespaces/namespace.ts';
import type { Metrics } from '../../../kernel/observability/metrics.port.ts';
import type { HeadProjection } from '../../../kernel/records/head-projection.port.ts';
import type { RecordRevision } from '../../../kernel/records/record.schema.ts';
import type { RevisionStore } from '../../../kernel/records/revision-store.port.ts';
import type { Embedder } from '../../../kernel/search/embedder.port.ts';
import {
  type CandidateQuery,
  passesSearchFilter,
  type SearchFilter,
  type SearchIndex,
  SearchIndexUnavailableError,
} from '../../../kernel/search/search-index.port.ts';
import type { SearchFields, SearchProjection } from '../../../kernel/search/search-projection.ts';
import type { Clock } from '../../../kernel/time/clock.ts';
import { NamespaceIndex, type NamespaceIndexParts } from '../embedded/namespace-index.ts';
import { edgesOfFields, indexChangesOf } from '../indexing/search-documents.ts';
import { cosineSimilarity } from '../ranking/feature-hashing.ts';
import {
  type ContextInput,
  SEARCH_K_MAX,
  type SearchFilters,
  type SearchInput,
  type SearchStrategy,
} from '../search.schema.ts';
import { type AssembledContext, assembleContext } from './context-assembler.ts';
import {
  type PooledCandidate,
  type RankedCandidate,
  rankCandidates,
  rankRelated,
  rankVerified,
  type VerifiedEvidence,
} from './rank-candidates.ts';
import type { Limitation, SearchOutcome, VerifiedHit } from './search-outcome.ts';

/** Records a fallback scan reads per namespace when its index cannot answer: the newest ones. */
export const FALLBACK_SCAN_LIMIT = 500;
/** Candidates each leg returns per namespace, before fusion and verification: several times `k`. */
const LEG_DEPTH = (k: number) => Math.min(200, Math.max(50, k * 5));
/** Seeds the graph strategy walks from, and hops it takes. */
const GRAPH_SEEDS = 5;
const GRAPH_HOPS = 2;

export type { Limitation, SearchOutcome, VerifiedHit } from './search-outcome.ts';

export interface SearchServiceDependencies {
  readonly index: SearchIndex;
  readonly revisions: Pick<RevisionStore, 'getHead'>;
  readonly heads: Pick<HeadProjection, 'listHeads'>;
  /** Every searchable kind's projection, from the modules this process builds. */
  readonly projections: () => readonly SearchProjection[];
  readonly embedder: Embedder;
  /** Fresh legs for a namespace index built on the spot (the fallback scan). */
  readonly parts: () => NamespaceIndexParts;
  readonly metrics: Metrics;
  readonly clock: Clock;
}

interface SearchedNamespace {
  readonly namespace: Namespace;
  readonly projection: SearchProjection;
}

/**
 * Search over the caller's own namespaces (or one project's): the index proposes candidates, a strategy ranks
 * them, and every candidate is re-read from its canonical head before it is disclosed. A candidate whose record
 * is gone, expired, no longer matching the filters, or not where the index said is dropped and counted; a
 * revised one is shown as its current revision, ranked on what it says now. Nothing the index holds is ever
 * shown as it is.
 */
export class SearchService {
  readonly #deps: SearchServiceDependencies;

  constructor(deps: SearchServiceDependencies) {
    this.#deps = deps;
  }

  /** A bounded context from as many hits as a search may give (see context-assembler.ts). */
  async context(scope: Scope, input: ContextInput): Promise<AssembledContext> {
    const { maxTokens, ...query } = input;
    return assembleContext(await this.search(scope, { ...query, k: SEARCH_K_MAX }), maxTokens);
  }

  async search(scope: Scope, input: SearchInput): Promise<SearchOutcome> {
    const spaces = this.#namespacesOf(scope, input);
    const limitations: Limitation[] = [];
    const [vector] = needsVector(input.strategy) ? await this.#deps.embedder.embed([input.query], 'query') : [];
    const filter = filterOf(input.filters);
    const depth = LEG_DEPTH(input.k);
    const query: CandidateQuery = {
      filter,
      ...(input.strategy === 'recency' && { recent: { limit: input.k * 3 } }),
      ...(usesKeyword(input.strategy) && { keyword: { text: input.query, limit: depth } }),
      ...(vector && { semantic: { vector: [...vector], model: this.#deps.embedder.model, limit: depth } }),
    };
    const pooled = await this.#candidates(spaces, query, limitations);
    const strategy = input.strategy === 'graph' ? 'hybrid' : input.strategy;
    const ranked = rankCandidates(strategy, pooled, this.#deps.embedder.model);
    const verifying = new Verification(this.#deps, input, vector, limitations);
    const wanted = input.strategy === 'graph' ? Math.min(GRAPH_SEEDS, input.k) : input.k;
    // The features shown, and the order, come from the verified hits alone: nothing the index holds of a record
    // the canonical store refuses (its score, its likeness to others) shapes what the caller sees.
    const seeds = rankVerified(strategy, await verifying.take(ranked, wanted));
    const hits = input.strategy === 'graph' ? await this.#walk(spaces, seeds, input, verifying, limitations) : seeds;
    verifying.report();
    return { hits: hits.slice(0, input.k), strategy: input.strategy, limitations };
  }

  /** The graph strategy: from verified seeds, hop to records sharing an edge, each hop verified like any hit. */
  async #walk(
    spaces: readonly SearchedNamespace[],
    seeds: readonly VerifiedHit[],
    input: SearchInput,
    verifying: Verification,
    limitations: Limitation[],
  ): Promise<VerifiedHit[]> {
    const hits: VerifiedHit[] = seeds.map((seed) => ({ ...seed, graph: { hops: 0, via: [] } }));
    let frontier = hits;
    for (let hop = 1; hop <= GRAPH_HOPS && hits.length < input.k && frontier.length > 0; hop++) {
      // Edges come from the verified seeds' canonical fields, never from the index's copy of them.
      const edges = edgesOf(frontier);
      if (Object.keys(edges).length === 0) break;
      const pooled = await this.#candidates(
        spaces,
        { filter: filterOf(input.filters), related: { edges, limit: LEG_DEPTH(input.k) } },
        limitations,
      );
      const seen = new Set(hits.map((hit) => `${hit.head.namespace.key}\u0000${hit.head.id}`));
      const fresh = pooled.filter((entry) => !seen.has(`${entry.namespace.key}\u0000${entry.candidate.document.id}`));
      const best = Math.max(...frontier.map((hit) => hit.score), 0);
      // The relation must hold on what the reached record says now, not on the index's copy of it.
      const viaOf = new Map<VerifiedHit, { type: string; value: string }[]>();
      const reached = await verifying.take(rankRelated(fresh), input.k - hits.length, (hit) => {
        const via = sharedEdges(edges, hit);
        viaOf.set(hit, via);
        return via.length > 0;
      });
      const most = Math.max(1, ...reached.map((hit) => viaOf.get(hit)?.length ?? 0));
      frontier = reached
        .map((hit) => {
          const via = viaOf.get(hit) ?? [];
          // A hop's score is its share of edges, discounted by distance from the best seed it was reached from.
          const graph = via.length / most;
          return { ...hit, score: best * 0.5 ** hop * graph, features: { graph }, graph: { hops: hop, via } };
        })
        .sort((a, b) => b.score - a.score);
      hits.push(...frontier);
    }
    return hits;
  }

  async #candidates(
    spaces: readonly SearchedNamespace[],
    query: CandidateQuery,
    limitations: Limitation[],
  ): Promise<PooledCandidate[]> {
    const sets = await Promise.all(
      spaces.map(async ({ namespace, projection }) => {
        try {
          return { namespace, set: await this.#deps.index.candidates(namespace, indexQueryFor(projection, query)) };
        } catch (error) {
          if (!(error instanceof SearchIndexUnavailableError)) throw error;
          this.#deps.metrics.count('search.index_unavailable');
          addLimitation(limitations, {
            code: 'index-unavailable',
            message: `The search index could not answer; the newest ${FALLBACK_SCAN_LIMIT} records of each affected space were scanned instead`,
          });
          return { namespace, set: await this.#scan(namespace, projection, query) };
        }
      }),
    );
    return sets.flatMap(({ namespace, set }) =>
      set.candidates.map((candidate): PooledCandidate => ({ namespace, candidate })),
    );
  }

  /** A bounded scan: the namespace's newest heads, indexed on the spot and queried the same way. */
  async #scan(namespace: Namespace, projection: SearchProjection, query: CandidateQuery) {
    const page = await this.#deps.heads.listHeads(namespace, { limit: FALLBACK_SCAN_LIMIT, descending: true });
    const changes = await indexChangesOf(
      page.items.map((head) => ({
        id: head.id,
        head: head.status === 'active' ? head : undefined,
        endedAt: head.revision,
      })),
      () => projection,
      this.#deps.embedder,
    );
    const index = new NamespaceIndex(this.#deps.parts());
    for (const change of changes) index.apply(change);
    return { candidates: index.candidates(query), documents: index.size };
  }

  #namespacesOf(scope: Scope, input: Pick<SearchInput, 'kinds' | 'agent' | 'project'>): SearchedNamespace[] {
    const projections = this.#deps.projections();
    const names = input.kinds ?? projections.map((projection) => projection.kind.name);
    // Paths name the field of the request body, as the schema's own issues do.
    const unknown = names.flatMap((name, index) =>
      projections.some((projection) => projection.kind.name === name)
        ? []
        : [{ path: `body.kinds.${index}`, message: 'not a searchable kind' }],
    );
    if (unknown.length > 0) throw new ValidationFailedError('Unknown kinds', unknown);
    return [...new Set(names)].map((name) => {
      const projection = projections.find((candidate) => candidate.kind.name === name) as SearchProjection;
      // Built by the caller's scope: a project the caller is not a member of answers NotFound here.
      return { namespace: namespaceIn(scope, projection, input), projection };
    });
  }
}

/**
 * The query as an index is asked it for one kind: without the states filter when the kind's states change with
 * time (the index's copy would miss a belief that matured since it was indexed; verification applies it).
 */
const indexQueryFor = (projection: SearchProjection, query: CandidateQuery): CandidateQuery => {
  if (!projection.statesChangeOverTime || query.filter.states === undefined) return query;
  const { states: _applyOnVerification, ...filter } = query.filter;
  return { ...query, filter };
};

/** The scope's namespace for a kind, narrowed as asked; its refusals name the request body's fields. */
const namespaceIn = (scope: Scope, projection: SearchProjection, input: Pick<SearchInput, 'agent' | 'project'>) => {
  try {
    return scope.namespace(projection.kind, { agent: input.agent, project: input.project });
  } catch (error) {
    if (!(error instanceof ValidationFailedError)) throw error;
    throw new ValidationFailedError(
      error.message,
      error.issues.map((issue) => ({ ...issue, path: `body.${issue.path}` })),
    );
  }
};

/**
 * Walks ranked candidates in order, reading each one's canonical head, and keeps those still true: live, in the
 * namespace the index placed them in, of the revision shown, matching the filters on what the record says now.
 * Reads run a batch at a time, side by side.
 */
class Verification {
  readonly #deps: SearchServiceDependencies;
  readonly #input: SearchInput;
  readonly #vector: Float32Array | undefined;
  readonly #limitations: Limitation[];
  #dropped = 0;

  constructor(
    deps: SearchServiceDependencies,
    input: SearchInput,
    vector: Float32Array | undefined,
    limitations: Limitation[],
  ) {
    this.#deps = deps;
    this.#input = input;
    this.#vector = vector;
    this.#limitations = limitations;
  }

  /** The first `wanted` candidates that verify (and that `accept`, checked on the canonical record), in rank order. */
  async take(
    ranked: readonly RankedCandidate[],
    wanted: number,
    accept: (hit: VerifiedHit) => boolean = () => true,
  ): Promise<VerifiedHit[]> {
    const hits: VerifiedHit[] = [];
    for (let start = 0; start < ranked.length && hits.length < wanted; start += wanted) {
      const batch = ranked.slice(start, start + wanted);
      const verified = await Promise.all(batch.map((entry) => this.#verify(entry)));
      for (const hit of verified) {
        if (!hit || hits.length >= wanted) continue;
        if (accept(hit)) hits.push(hit);
        else this.#drop();
      }
    }
    return hits;
  }

  report(): void {
    if (this.#dropped === 0) return;
    this.#deps.metrics.count('search.stale_dropped', this.#dropped);
    // Not how many: a count of dropped entries matching a query would tell what a record no longer says.
    addLimitation(this.#limitations, {
      code: 'stale-entries-dropped',
      message: 'Some index entries no longer matched their records and were left out',
    });
  }

  async #verify(entry: RankedCandidate): Promise<VerifiedHit | undefined> {
    const { namespace, candidate } = entry;
    const head = await this.#deps.revisions.getHead(namespace, candidate.document.id);
    const projection = this.#deps.projections().find((p) => p.kind.name === namespace.kind.name);
    const fields = head && projection && head.status === 'active' ? projection.fields(head) : undefined;
    const live = head && head.namespace.key === namespace.key && head.expiresAt > this.#deps.clock.now().toISOString();
    if (!head || !projection || !fields || !live || !matches(head, fields, this.#input.filters)) return this.#drop();
    const current = head.revision === candidate.document.revision;
    // Revised since it was indexed: only what the current text says counts (its own vector, no BM25 of the old text).
    // Indexed by another model (before the embedder changed): its vector is not comparable, the text is embedded now.
    const comparable = current && candidate.document.model === this.#deps.embedder.model;
    const vector = comparable ? candidate.document.vector : await this.#currentVector(fields.text);
    const evidence: VerifiedEvidence = {
      keyword: current ? candidate.keyword : undefined,
      semantic: vector && this.#vector ? cosineSimilarity(vector, this.#vector) : undefined,
      vector,
      updatedAt: head.updatedAt,
    };
    if (!current && this.#input.strategy !== 'recency' && !((evidence.semantic ?? 0) > 0)) return this.#drop();
    return { head, fields, projection, score: entry.score, features: {}, evidence };
  }

  async #currentVector(text: string): Promise<readonly number[] | undefined> {
    if (!this.#vector) return undefined;
    const [vector] = await this.#deps.embedder.embed([text]);
    return vector && [...vector];
  }

  #drop(): undefined {
    this.#dropped += 1;
    return undefined;
  }
}

const needsVector = (strategy: SearchStrategy): boolean =>
  strategy === 'semantic' || strategy === 'hybrid' || strategy === 'graph';
const usesKeyword = (strategy: SearchStrategy): boolean =>
  strategy === 'keyword' || strategy === 'hybrid' || strategy === 'graph';

const filterOf = (filters: SearchFilters | undefined): SearchFilter => ({
  tags: filters?.tags,
  states: filters?.status,
  since: filters?.since,
  until: filters?.until,
});

/** The filters, checked again on the canonical record: the index's copy of tags and states may be stale. */
const matches = (head: RecordRevision, fields: SearchFields, filters: SearchFilters | undefined): boolean =>
  passesSearchFilter(
    { kind: head.namespace.kind.name, tags: fields.tags, states: fields.states, updatedAt: head.updatedAt },
    filterOf(filters),
  );

/** The edges of the verified hits, from their canonical fields. */
const edgesOf = (hits: readonly VerifiedHit[]): Record<string, string[]> => {
  const edges: Record<string, Set<string>> = {};
  for (const hit of hits)
    for (const [type, values] of Object.entries(edgesOfFields(hit.fields)))
      edges[type] = new Set([...(edges[type] ?? []), ...values]);
  return Object.fromEntries(Object.entries(edges).map(([type, values]) => [type, [...values]]));
};

/** Which of `edges` the hit's canonical record shares. */
const sharedEdges = (
  edges: Readonly<Record<string, readonly string[]>>,
  hit: VerifiedHit,
): { type: string; value: string }[] => {
  const own = edgesOfFields(hit.fields);
  return Object.entries(edges).flatMap(([type, values]) =>
    values.filter((value) => own[type]?.includes(value)).map((value) => ({ type, value })),
  );
};

const addLimitation = (limitations: Limitation[], limitation: Limitation): void => {
  if (!limitations.some((known) => known.code === limitation.code)) limitations.push(limitation);
};
