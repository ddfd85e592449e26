/**
 * The retrieval-quality set served by the real search code, in process: every memory becomes a record revision
 * of its kind, its search document is built by the kind's own projection (`indexChangesOf`, as the consumer and
 * the reconciler build it), each namespace's embedded index is rebuilt from those documents, and queries run
 * through `SearchService.search` — the legs, `rankCandidates`, verification and graph walk of `/v1/search`.
 * Only the HTTP layer, the record store and encryption are left out: heads are read from a map.
 */
import { InMemorySearchIndexStore } from '../../lambdas/adapters/memory/in-memory-search-index-store.ts';
import type { Belief, RuleKind } from '../../lambdas/capabilities/learning/belief.schema.ts';
import { beliefSearchProjections } from '../../lambdas/capabilities/learning/belief.search.ts';
import { BELIEF_KINDS } from '../../lambdas/capabilities/learning/belief-record.ts';
import { learningSettings } from '../../lambdas/capabilities/learning/learning.config.ts';
import { NOTE, type NoteContent } from '../../lambdas/capabilities/notes/note.schema.ts';
import { noteSearchProjection } from '../../lambdas/capabilities/notes/note.search.ts';
import { embeddedLegs } from '../../lambdas/capabilities/retrieval/embedded/embedded-legs.ts';
import { EmbeddedSearchIndex } from '../../lambdas/capabilities/retrieval/embedded/embedded-search-index.ts';
import { indexChangesOf } from '../../lambdas/capabilities/retrieval/indexing/search-documents.ts';
import { FeatureHashingEmbedder } from '../../lambdas/capabilities/retrieval/ranking/feature-hashing.ts';
import { SearchService } from '../../lambdas/capabilities/retrieval/search/search-service.ts';
import { SearchInput, type SearchStrategy } from '../../lambdas/capabilities/retrieval/search.schema.ts';
import { Scope } from '../../lambdas/kernel/identity/scope.ts';
import { readVerifiedClaims } from '../../lambdas/kernel/identity/verified-claims.ts';
import type { Namespace } from '../../lambdas/kernel/namespaces/namespace.ts';
import { noMetrics } from '../../lambdas/kernel/observability/metrics.port.ts';
import type { RecordRevision } from '../../lambdas/kernel/records/record.schema.ts';
import type { Embedder } from '../../lambdas/kernel/search/embedder.port.ts';
import type { IndexChange, SearchDocument } from '../../lambdas/kernel/search/search-document.ts';
import type { SearchProjection } from '../../lambdas/kernel/search/search-projection.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import type { Memory } from '../retrieval-quality/dataset.ts';
import { SET_END } from '../retrieval-quality/memory-book.ts';

/** The rule kind of each of the set's rule keys: who the principal is, or how they like answers and work. */
const RULE_KIND_OF_KEY: Readonly<Record<string, RuleKind>> = {
  timezone: 'profile',
  location: 'profile',
  role: 'profile',
  preferred_name: 'profile',
  'response.language': 'preference',
  'response.length': 'preference',
  'response.tone': 'preference',
  'response.format': 'preference',
  'notification.channel': 'preference',
  'meeting.preferred_time': 'preference',
  'review.max_lines': 'pattern',
};

const PROVENANCE = {
  createdBy: { principal: 'quality-bench', client: 'quality-bench' },
  revisedBy: { principal: 'quality-bench', client: 'quality-bench' },
  sourceEventIds: [],
};

/** Far past every memory of the set: nothing expires while the set is searched. */
const EXPIRES_AT = '2099-01-01T00:00:00.000Z';

/**
 * A belief as the learning merge would keep it after the principal said it three times in two sessions: one
 * mature, declarative value, applied. Its value is the set's statement, which names its principal, since the
 * set pools every principal's beliefs in one place.
 */
const beliefOf = (memory: Memory, kind: RuleKind): Belief => {
  const at = memory.createdAt;
  return {
    key: memory.ruleKey as string,
    kind,
    basis: 'declarative',
    cardinality: 'single',
    values: [
      {
        value: memory.text,
        status: 'mature',
        confidence: 0.9,
        support: 3,
        refuted: 0,
        firstSeen: at,
        lastSeen: at,
        declaredAt: at,
        sessions: [
          { session: 'quality-a', lastSeen: at },
          { session: 'quality-b', lastSeen: at },
        ],
        evidence: [],
        recent: [],
        refutations: [],
      },
    ],
    status: 'mature',
    appliedValue: memory.text,
    confidence: 0.9,
    statusChangedAt: at,
    superseded: [],
  };
};

export interface QualityServiceOptions {
  /** The default: feature hashing, as the service runs without a model. */
  readonly embedder?: Embedder;
}

/** Searches the set's memories as one caller's notes and beliefs, through the search service. */
export class RetrievalQualityService {
  /** Search documents indexed: one per memory when every projection accepted its record. */
  readonly documents: number;
  readonly #service: SearchService;
  readonly #scope: Scope;

  private constructor(service: SearchService, scope: Scope, documents: number) {
    this.#service = service;
    this.#scope = scope;
    this.documents = documents;
  }

  static async index(
    memories: readonly Memory[],
    options: QualityServiceOptions = {},
  ): Promise<RetrievalQualityService> {
    const embedder = options.embedder ?? new FeatureHashingEmbedder();
    const { scope, clock, projections, heads, spaces } = await qualityDocumentsOf(memories, embedder);
    const parts = () => embeddedLegs(embedder);
    const index = new EmbeddedSearchIndex({ store: new InMemorySearchIndexStore(), parts, metrics: noMetrics });
    // What the reconciler does: each namespace's index rebuilt from its live heads' documents.
    for (const { namespace, documents } of spaces)
      await index.rebuild(namespace, async () => ({ documents, removed: [] }));
    const service = new SearchService({
      index,
      revisions: { getHead: async (namespace, id) => heads.get(headKey(namespace, id)) },
      heads: {
        listHeads: () => Promise.reject(new Error('The quality bench never scans: its index always answers')),
      },
      projections: () => projections,
      embedder,
      parts,
      metrics: noMetrics,
      clock,
    });
    const indexed = spaces.reduce((sum, { documents }) => sum + documents.length, 0);
    return new RetrievalQualityService(service, scope, indexed);
  }

  /** The ids of the memories `/v1/search` would return, best first. */
  async search(query: string, strategy: SearchStrategy, k: number): Promise<string[]> {
    const outcome = await this.#service.search(this.#scope, SearchInput.parse({ query, strategy, k }));
    if (outcome.limitations.length > 0)
      throw new Error(`The quality bench expects no limitations, got ${JSON.stringify(outcome.limitations)}`);
    return outcome.hits.map((hit) => hit.head.id);
  }
}

const headKey = (namespace: Namespace, id: string): string => `${namespace.key}\u0000${id}`;

export interface QualityDocuments {
  readonly scope: Scope;
  readonly clock: ManualClock;
  readonly projections: readonly SearchProjection[];
  /** Every memory's record head, by namespace key and id. */
  readonly heads: ReadonlyMap<string, RecordRevision>;
  /** Each namespace's search documents, as its kind's projection builds them. */
  readonly spaces: readonly { readonly namespace: Namespace; readonly documents: readonly SearchDocument[] }[];
}

/** The set's memories as one caller's record heads and the search documents the projections make of them. */
export const qualityDocumentsOf = async (
  memories: readonly Memory[],
  embedder: Embedder,
): Promise<QualityDocuments> => {
  const clock = new ManualClock(new Date(SET_END));
  const scope = Scope.fromVerifiedClaims(
    readVerifiedClaims({ sub: 'quality-bench', 'custom:tenant': 'quality-bench', client_id: 'quality-bench' }),
  );
  const projections: SearchProjection[] = [
    // Hits are never presented here (no HTTP response is built), so a note's view is not needed.
    noteSearchProjection({ view: () => undefined as never }),
    ...beliefSearchProjections({ clock, learning: (agent) => learningSettings.of({}, agent) }),
  ];
  const heads = new Map<string, RecordRevision>();
  const byNamespace = new Map<string, { namespace: Namespace; revisions: RecordRevision[] }>();
  for (const memory of memories) {
    const revision = revisionOf(scope, memory);
    heads.set(headKey(revision.namespace, revision.id), revision);
    const space = byNamespace.get(revision.namespace.key) ?? { namespace: revision.namespace, revisions: [] };
    space.revisions.push(revision);
    byNamespace.set(revision.namespace.key, space);
  }
  const projectionOf = (kind: string) => projections.find((projection) => projection.kind.name === kind);
  const spaces = [];
  for (const { namespace, revisions } of byNamespace.values()) {
    const changes = await indexChangesOf(
      revisions.map((head) => ({ id: head.id, head, endedAt: head.revision })),
      projectionOf,
      embedder,
    );
    const documents = changes.flatMap((change: IndexChange): SearchDocument[] =>
      change.type === 'upsert' ? [change.document] : [],
    );
    spaces.push({ namespace, documents });
  }
  return { scope, clock, projections, heads, spaces };
};

/** A memory as its kind's record revision 1: a note, or a belief in its rule kind's namespace. */
const revisionOf = (scope: Scope, memory: Memory): RecordRevision => {
  const common = {
    id: memory.id,
    revision: 1,
    status: 'active' as const,
    provenance: PROVENANCE,
    createdAt: memory.createdAt,
    updatedAt: memory.createdAt,
    expiresAt: EXPIRES_AT,
  };
  if (memory.kind === 'note') {
    const content: NoteContent = { text: memory.text, tags: memory.tags };
    return { ...common, namespace: scope.namespace(NOTE), content };
  }
  const kind = RULE_KIND_OF_KEY[memory.ruleKey ?? ''];
  if (kind === undefined) throw new Error(`No rule kind for the belief key ${memory.ruleKey}`);
  return { ...common, namespace: scope.namespace(BELIEF_KINDS[kind]), content: beliefOf(memory, kind) };
};
