import type { AwsCredentialIdentityProvider } from '@smithy/types';
import { OpenSearchSearchIndex } from '../adapters/opensearch/opensearch-search-index.ts';
import { openSearchTransport } from '../adapters/opensearch/opensearch-transport.ts';
import { type Embedder, MODEL_FREE_EMBEDDING_DIMENSIONS } from '../kernel/search/embedder.port.ts';
import type { AwsEnvironment } from './aws-application.ts';

/** The index name when the stack does not set one (lib/constructs/search-collection.ts uses the same). */
export const DEFAULT_SEARCH_INDEX_NAME = 'memory-hub-search';

/**
 * The OpenSearch Serverless index a bundle built with it searches and writes (see bundled-backends.ts): the
 * collection's endpoint and index from the environment, signed with the credentials the table client uses, its
 * vectors as wide as the embedder's, its terms those of `analyze` (the embedded index's analysis, which the
 * retrieval entry passes in). A bundle built for OpenSearch without an endpoint refuses to start.
 */
export const openSearchIndexFor = (
  environment: AwsEnvironment,
  context: { readonly embedder: Embedder | undefined; readonly credentials: AwsCredentialIdentityProvider },
  analyze: (text: string) => readonly string[],
): OpenSearchSearchIndex => {
  const endpoint = environment.MEMORY_HUB_SEARCH_ENDPOINT;
  const region = process.env.AWS_REGION;
  if (!endpoint || !region)
    throw new Error(
      'This function was built to search OpenSearch, but MEMORY_HUB_SEARCH_ENDPOINT or AWS_REGION is unset',
    );
  return new OpenSearchSearchIndex({
    transport: openSearchTransport({ endpoint, region, credentials: context.credentials }),
    index: environment.MEMORY_HUB_SEARCH_INDEX ?? DEFAULT_SEARCH_INDEX_NAME,
    dimensions: context.embedder?.dimensions ?? MODEL_FREE_EMBEDDING_DIMENSIONS,
    analyze,
  });
};
