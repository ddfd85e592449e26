import { describe, expect, it } from 'vitest';
import { BUNDLED_BACKENDS_CONTEXT } from '../../lib/lambda-bundling.ts';
import { synthesizeProjectApp } from './support/fixture-app.ts';

/** What the stack tells its functions to bundle (lib/constructs/service-function.ts reads it for each function). */
const backendsOf = (appOptions?: Parameters<typeof synthesizeProjectApp>[0]) => {
  const synthesized = synthesizeProjectApp(appOptions);
  try {
    return synthesized.stack.node.tryGetContext(BUNDLED_BACKENDS_CONTEXT);
  } finally {
    synthesized.dispose();
  }
};

describe('Stack: the opt-in backends its functions bundle', () => {
  it('bundles the defaults only, unless the stack asks for OpenSearch or a Bedrock model', () => {
    // Act & Assess
    expect(backendsOf()).toEqual({ searchIndex: 'embedded', embedder: 'hashing' });
    expect(backendsOf({ openSearch: {} })).toEqual({ searchIndex: 'opensearch', embedder: 'hashing' });
    expect(backendsOf({ embeddingModel: { modelId: 'amazon.titan-embed-text-v2:0' } })).toEqual({
      searchIndex: 'embedded',
      embedder: 'bedrock',
    });
  });
});
