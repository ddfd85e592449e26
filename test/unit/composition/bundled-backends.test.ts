import { afterEach, describe, expect, it, vi } from 'vitest';
import { BedrockEmbedder } from '../../../lambdas/adapters/bedrock/bedrock-embedder.ts';
import { OpenSearchSearchIndex } from '../../../lambdas/adapters/opensearch/opensearch-search-index.ts';
import { notesModule } from '../../../lambdas/capabilities/notes/notes.module.ts';
import { awsApplication } from '../../../lambdas/composition/aws-application.ts';
import { bundledBackends } from '../../../lambdas/composition/bundled-backends.ts';
import { TEST_AWS_ENVIRONMENT } from '../../support/aws-environment.ts';

const environment = TEST_AWS_ENVIRONMENT;
const search = { analyze: (text: string) => text.toLowerCase().split(/\s+/) };
const collection = {
  MEMORY_HUB_SEARCH_ENDPOINT: 'https://abc123.eu-west-1.aoss.amazonaws.com',
  MEMORY_HUB_SEARCH_INDEX: 'memory-hub-test-search',
};

/*
 * Unbundled, `process.env.MEMORY_HUB_BUNDLED_*` are read as they are; a Lambda bundle has them replaced by constants
 * (lib/lambda-bundling.ts), which test/infra/lambda-bundling.test.ts shows keeps the unused clients out.
 */
describe('Function: bundledBackends', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('offers no opt-in backend by default: the kernel keeps the embedded index and the model-free embedder', async () => {
    // Act
    const backends = await bundledBackends(search);
    const application = await awsApplication({ ...environment, ...collection }, [notesModule], backends);

    // Assess
    expect(backends).toEqual({});
    expect(application.service.kernel.searchIndex).toBeUndefined();
    expect(application.service.kernel.embedder).toBeUndefined();
  });

  it('builds the OpenSearch index and the Bedrock embedder a bundle was built with, the index as wide as the model', async () => {
    // Prepare
    vi.stubEnv('MEMORY_HUB_BUNDLED_SEARCH_INDEX', 'opensearch');
    vi.stubEnv('MEMORY_HUB_BUNDLED_EMBEDDER', 'bedrock');
    vi.stubEnv('AWS_REGION', 'eu-west-1');

    // Act
    const application = await awsApplication(
      {
        ...environment,
        ...collection,
        MEMORY_HUB_EMBEDDING_MODEL_ID: 'amazon.titan-embed-text-v2:0',
        MEMORY_HUB_EMBEDDING_DIMENSIONS: '512',
      },
      [notesModule],
      await bundledBackends(search),
    );

    // Assess: nothing is called at init
    expect(application.service.kernel.searchIndex).toBeInstanceOf(OpenSearchSearchIndex);
    expect(application.service.kernel.embedder).toBeInstanceOf(BedrockEmbedder);
    expect(application.service.kernel.embedder?.dimensions).toBe(512);
  });

  it('refuses to start a bundle built for OpenSearch without the collection’s endpoint', async () => {
    // Prepare
    vi.stubEnv('MEMORY_HUB_BUNDLED_SEARCH_INDEX', 'opensearch');

    // Act & Assess
    await expect(awsApplication(environment, [notesModule], await bundledBackends(search))).rejects.toThrow(
      /MEMORY_HUB_SEARCH_ENDPOINT/,
    );
  });
});
