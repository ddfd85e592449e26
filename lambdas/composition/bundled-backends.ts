import type { AwsApplicationOptions } from './aws-application.ts';

/**
 * The opt-in backends a Lambda bundle was built with: the Bedrock embedder, the OpenSearch index. Each
 * `process.env.MEMORY_HUB_BUNDLED_*` below is replaced by a constant when a bundle is built (`backendDefines` in
 * lib/lambda-bundling.ts, from the stack's props), so the branch not taken, and the client it would import, is not
 * in the bundle at all: every bundle stays under its 1 MB budget with only what its deployment uses. Unbundled
 * (tests, local mode) the variables are read as they are, and unset means the defaults.
 */
export const bundledBackends = async (search: {
  /** How text becomes terms for keyword search (retrieval's analysis): an index outside the table indexes those. */
  readonly analyze: (text: string) => readonly string[];
}): Promise<Pick<AwsApplicationOptions, 'embedder' | 'searchIndex'>> => {
  const openSearch =
    process.env.MEMORY_HUB_BUNDLED_SEARCH_INDEX === 'opensearch'
      ? (await import('./opensearch-search-index-for.ts')).openSearchIndexFor
      : undefined;
  return {
    ...(process.env.MEMORY_HUB_BUNDLED_EMBEDDER === 'bedrock' && {
      embedder: (await import('../adapters/bedrock/bedrock-embedder.ts')).bedrockEmbedderFor,
    }),
    ...(openSearch && {
      searchIndex: (environment, context) => openSearch(environment, context, search.analyze),
    }),
  };
};
