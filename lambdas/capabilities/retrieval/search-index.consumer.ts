import type { ConsumeOutcome, EventConsumer } from '../../kernel/events/event-consumer.port.ts';
import { UnresolvedNamespaceError } from '../../kernel/events/head-projection.consumer.ts';
import type { RecordEvent } from '../../kernel/events/record-event.schema.ts';
import type { RecordKind, RecordKinds } from '../../kernel/namespaces/record-kind.ts';
import { namespaceFromStorageKey } from '../../kernel/namespaces/system-namespaces.ts';
import type { NamespaceDirectory } from '../../kernel/records/namespace-directory.port.ts';
import type { RevisionStore } from '../../kernel/records/revision-store.port.ts';
import type { Embedder } from '../../kernel/search/embedder.port.ts';
import type { SearchIndex } from '../../kernel/search/search-index.port.ts';
import type { SearchProjection } from '../../kernel/search/search-projection.ts';
import { indexChangesOf } from './indexing/search-documents.ts';

export const SEARCH_INDEX_CONSUMER = 'search-index';

/** The kinds whose events the search index consumer takes (the rule on the bus leaves the rest out). */
export const indexesKind = (kind: RecordKind): boolean => kind.searchable;

export interface SearchIndexConsumerDependencies {
  readonly index: SearchIndex;
  readonly revisions: Pick<RevisionStore, 'getHead'>;
  readonly directory: NamespaceDirectory;
  readonly kinds: RecordKinds;
  /** Every searchable kind's projection, from the modules this function builds. */
  readonly projections: () => readonly SearchProjection[];
  readonly embedder: Embedder;
}

/**
 * Keeps the search index at each record's canonical head: whatever the event says, the consumer reads the head
 * and indexes that (or removes the record when it is no longer live), so a replayed, duplicated or late event
 * writes what is true now — and the index, revision-aware, ignores anything older than what it has.
 */
export class SearchIndexConsumer implements EventConsumer {
  readonly name = SEARCH_INDEX_CONSUMER;
  readonly #deps: SearchIndexConsumerDependencies;

  constructor(deps: SearchIndexConsumerDependencies) {
    this.#deps = deps;
  }

  async consume(event: RecordEvent): Promise<ConsumeOutcome> {
    const kind = this.#deps.kinds.get(event.record_kind);
    if (!kind || !indexesKind(kind)) return 'ignored';
    const entry = await this.#deps.directory.resolve(event.tenant, event.namespace_hash);
    const namespace = entry && namespaceFromStorageKey(entry.key, this.#deps.kinds);
    if (!namespace) throw new UnresolvedNamespaceError();
    const projection = this.#deps.projections().find((candidate) => candidate.kind.name === kind.name);
    // Without its projection a live record would read as having nothing to search, and be removed: a fault instead.
    if (!projection) throw new MissingSearchProjectionError(kind.name);
    const head = await this.#deps.revisions.getHead(namespace, event.record_id);
    const changes = await indexChangesOf(
      [{ id: event.record_id, head, endedAt: event.revision }],
      () => projection,
      this.#deps.embedder,
    );
    await this.#deps.index.apply(namespace, changes);
    return 'applied';
  }
}

export class MissingSearchProjectionError extends Error {
  override readonly name = 'MissingSearchProjectionError';

  constructor(kind: string) {
    super(`No module built in this function indexes the kind ${kind}`);
  }
}
