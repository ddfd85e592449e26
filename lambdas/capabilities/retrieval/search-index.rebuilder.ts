import type { RecordKind } from '../../kernel/namespaces/record-kind.ts';
import type { Embedder } from '../../kernel/search/embedder.port.ts';
import type { SearchDocument } from '../../kernel/search/search-document.ts';
import type { SearchIndex } from '../../kernel/search/search-index.port.ts';
import type { NamespaceRebuilder, SearchProjection } from '../../kernel/search/search-projection.ts';
import { indexChangesOf } from './indexing/search-documents.ts';
import { indexesKind, MissingSearchProjectionError } from './search-index.consumer.ts';

/** The reconciler's rebuild of a namespace's search index from its canonical heads: the same documents the consumer writes. */
export const searchIndexRebuilder = (deps: {
  readonly index: SearchIndex;
  readonly projections: () => readonly SearchProjection[];
  readonly embedder: Embedder;
}): NamespaceRebuilder => ({
  name: 'search-index',
  handles: (kind: RecordKind) => indexesKind(kind),
  rebuild: async (namespace, read) => {
    const projection = deps.projections().find((candidate) => candidate.kind.name === namespace.kind.name);
    if (!projection) throw new MissingSearchProjectionError(namespace.kind.name);
    await deps.index.rebuild(namespace, async () => {
      const { live, ended } = await read();
      const changes = await indexChangesOf(
        [
          ...live.map((head) => ({ id: head.id, head, endedAt: head.revision })),
          ...ended.map(([id, revision]) => ({ id, head: undefined, endedAt: revision })),
        ],
        () => projection,
        deps.embedder,
      );
      const documents: SearchDocument[] = [];
      const removed: [string, number][] = [];
      for (const change of changes)
        if (change.type === 'upsert') documents.push(change.document);
        else removed.push([change.id, change.revision]);
      return { documents, removed };
    });
  },
});
