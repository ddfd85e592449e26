import { defineModule } from '../../composition/capability-module.ts';
import { embeddedLegs } from './embedded/embedded-legs.ts';
import { EmbeddedSearchIndex } from './embedded/embedded-search-index.ts';
import { retrievalHandlers } from './http/retrieval.handlers.ts';
import { RETRIEVAL_OPERATIONS } from './http/retrieval.operations.ts';
import { FeatureHashingEmbedder } from './ranking/feature-hashing.ts';
import { SearchService } from './search/search-service.ts';
import { indexesKind, SEARCH_INDEX_CONSUMER, SearchIndexConsumer } from './search-index.consumer.ts';
import { searchIndexRebuilder } from './search-index.rebuilder.ts';
import { SEARCH_INDEX_REBUILD, searchIndexRebuild } from './search-index-rebuild.workflow.ts';

const ENTRY = 'lambdas/capabilities/retrieval/retrieval.lambda.ts';

/**
 * A function reads a namespace's index log at most this often: searches in between use what it holds. Another
 * function's appends (in AWS, the consumer's) become searchable up to this much later; every hit is still
 * verified against its canonical record, so nothing changed or deleted is shown for it.
 */
const INDEX_REVALIDATE_AFTER_MS = 100;

/**
 * Retrieval (reference 000's strategies, reference 002 §10): a derived search index per namespace, fed by the
 * event backbone, and search and context assembly over every searchable kind the modules declare — each hit
 * re-read from its canonical record before it is disclosed.
 */
export const retrievalModule = defineModule({
  name: 'retrieval',
  operations: RETRIEVAL_OPERATIONS,
  consumers: [
    {
      name: SEARCH_INDEX_CONSUMER,
      entry: ENTRY,
      handler: 'searchIndexConsumer',
      description: 'Keeps the search index at each searchable record’s canonical head',
      handles: indexesKind,
    },
  ],
  workflows: [SEARCH_INDEX_REBUILD],
  build: ({ kernel, http, searchable }) => {
    const embedder = kernel.embedder ?? new FeatureHashingEmbedder();
    const parts = () => embeddedLegs(embedder);
    const index =
      kernel.searchIndex ??
      new EmbeddedSearchIndex({
        store: kernel.searchIndexStore,
        parts,
        metrics: kernel.metrics,
        revalidateAfterMs: INDEX_REVALIDATE_AFTER_MS,
      });
    const search = new SearchService({
      index,
      revisions: kernel.revisions,
      heads: kernel.heads,
      projections: searchable,
      embedder,
      parts,
      metrics: kernel.metrics,
      clock: kernel.clock,
    });
    const rebuilder = searchIndexRebuilder({ index, projections: searchable, embedder });
    return {
      services: { search, index },
      handlers: retrievalHandlers(search, http),
      consumers: [
        new SearchIndexConsumer({
          index,
          revisions: kernel.revisions,
          directory: kernel.directory,
          kinds: kernel.kinds,
          projections: searchable,
          embedder,
        }),
      ],
      rebuilders: [rebuilder],
      workflows: [
        searchIndexRebuild({
          revisions: kernel.revisions,
          heads: kernel.heads,
          maintenance: kernel.maintenance,
          directory: kernel.directory,
          kinds: kernel.kinds,
          rebuilder,
        }),
      ],
    };
  },
});
