import { InMemorySearchIndexStore } from '../../../lambdas/adapters/memory/in-memory-search-index-store.ts';
import { InMemoryMetrics } from '../../../lambdas/adapters/observability/in-memory-metrics.ts';
import { embeddedLegs } from '../../../lambdas/capabilities/retrieval/embedded/embedded-legs.ts';
import { EmbeddedSearchIndex } from '../../../lambdas/capabilities/retrieval/embedded/embedded-search-index.ts';
import { FeatureHashingEmbedder } from '../../../lambdas/capabilities/retrieval/ranking/feature-hashing.ts';
import { describeSearchIndexContract } from '../../contract/search-index.contract.ts';

const embedder = new FeatureHashingEmbedder();

describeSearchIndexContract('embedded, over the in-memory store', async () => {
  const store = new InMemorySearchIndexStore();
  const open = () =>
    new EmbeddedSearchIndex({
      store,
      parts: () => embeddedLegs(embedder),
      metrics: new InMemoryMetrics(),
      compactEvery: 4,
    });
  return { index: open(), reopen: open, close: async () => {} };
});
