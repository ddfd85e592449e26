import { describe, expect, it } from 'vitest';
import { BedrockEmbedder, bedrockEmbedderFor } from '../../../lambdas/adapters/bedrock/bedrock-embedder.ts';
import { notesModule } from '../../../lambdas/capabilities/notes/notes.module.ts';
import { AwsEnvironment, awsApplication } from '../../../lambdas/composition/aws-application.ts';
import { TEST_AWS_ENVIRONMENT } from '../../support/aws-environment.ts';

const environment = TEST_AWS_ENVIRONMENT;

describe('Function: awsApplication (embedding model)', () => {
  it('reads the model and its dimensions from the environment, refusing a malformed one', () => {
    const parsed = AwsEnvironment.parse({
      ...environment,
      MEMORY_HUB_EMBEDDING_MODEL_ID: 'amazon.titan-embed-text-v2:0',
      MEMORY_HUB_EMBEDDING_DIMENSIONS: '512',
    });

    expect(parsed).toMatchObject({
      MEMORY_HUB_EMBEDDING_MODEL_ID: 'amazon.titan-embed-text-v2:0',
      MEMORY_HUB_EMBEDDING_DIMENSIONS: 512,
    });
    expect(AwsEnvironment.safeParse({ ...environment, MEMORY_HUB_EMBEDDING_DIMENSIONS: 'many' }).success).toBe(false);
    expect(AwsEnvironment.safeParse({ ...environment, MEMORY_HUB_EMBEDDING_MODEL_ID: 'Titan V2' }).success).toBe(false);
  });

  it('gives the kernel the embedder the entry builds from the environment, and none without a model', async () => {
    // Act
    const withModel = await awsApplication(
      {
        ...environment,
        MEMORY_HUB_EMBEDDING_MODEL_ID: 'amazon.titan-embed-text-v2:0',
        MEMORY_HUB_EMBEDDING_DIMENSIONS: '256',
      },
      [notesModule],
      { embedder: bedrockEmbedderFor },
    );
    const withoutModel = await awsApplication(environment, [notesModule], { embedder: bedrockEmbedderFor });

    // Assess: no call is made at init; the kernel holds the adapter, named by model and size
    expect(withModel.service.kernel.embedder).toBeInstanceOf(BedrockEmbedder);
    expect(withModel.service.kernel.embedder?.model).toBe('amazon.titan-embed-text-v2:0/256');
    expect(withoutModel.service.kernel.embedder).toBeUndefined();
  });
});
