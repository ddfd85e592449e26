import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDING_DIMENSIONS_VARIABLE, EMBEDDING_MODEL_VARIABLE } from '../../lib/constructs/embedding-model.ts';
import { nagFindings, type SynthesizedApp, synthesizeProjectApp } from './support/fixture-app.ts';
import { actionsOf, logicalIdOf, statementsAllowing } from './support/template-queries.ts';

const RETRIEVAL_ENTRY = 'lambdas/capabilities/retrieval/retrieval.lambda.ts';

const synthesize = (embeddingModel?: { modelId: string; dimensions?: number }) =>
  synthesizeProjectApp(embeddingModel && { embeddingModel });

describe('Construct: EmbeddingModel', () => {
  let withModel: SynthesizedApp;
  beforeAll(() => {
    withModel = synthesize({ modelId: 'amazon.titan-embed-text-v2:0', dimensions: 512 });
  });
  afterAll(() => withModel.dispose());

  it('is absent by default: no function may invoke a Bedrock model, none is told of one', () => {
    // Prepare & Act
    const plain = synthesize();

    // Assess
    expect(plain.stack.embeddingModel).toBeUndefined();
    expect(JSON.stringify(plain.template.toJSON())).not.toContain('bedrock:');
    expect(JSON.stringify(plain.template.toJSON())).not.toContain(EMBEDDING_MODEL_VARIABLE);
    plain.dispose();
  });

  it('lets exactly the functions that embed invoke exactly that foundation model, in the stack’s region', () => {
    // Prepare
    const { template, stack } = withModel;
    const embedders = [
      ...stack.apiFunctions.specs
        .filter((spec) => spec.entry === RETRIEVAL_ENTRY)
        .map((spec) => stack.apiFunctions.functions.get(spec.key)?.role),
      stack.eventConsumers.consumer('searchIndexConsumer').consumer.role,
      // The daily search index rebuild embeds too.
      stack.workflows.stepRunner.role,
    ];
    expect(embedders.length).toBeGreaterThan(2);
    const modelArn = {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':bedrock:',
          { Ref: 'AWS::Region' },
          '::foundation-model/amazon.titan-embed-text-v2:0',
        ],
      ],
    };

    // Assess: the one action on the one model, for these roles and no other
    for (const role of embedders)
      expect(statementsAllowing(template, role as never, 'bedrock:InvokeModel')).toEqual([
        { Effect: 'Allow', Action: 'bedrock:InvokeModel', Resource: modelArn },
      ]);
    const granted = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) => JSON.stringify(policy.Properties.PolicyDocument).includes('bedrock:'))
      .flatMap((policy) => (policy.Properties.Roles as { Ref: string }[]).map((role) => role.Ref));
    expect(new Set(granted)).toEqual(new Set(embedders.map((role) => logicalIdOf(role as never))));
    for (const role of embedders)
      expect(actionsOf(template, role as never).filter((action) => action.startsWith('bedrock:'))).toEqual([
        'bedrock:InvokeModel',
      ]);
  });

  it('tells those functions the model and its dimensions', () => {
    withModel.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          [EMBEDDING_MODEL_VARIABLE]: 'amazon.titan-embed-text-v2:0',
          [EMBEDDING_DIMENSIONS_VARIABLE]: '512',
        }),
      },
    });
  });

  it.each([
    [{ modelId: 'amazon.titan-embed-text-v1' }, /Unknown embedding model/],
    [{ modelId: 'amazon.titan-embed-text-v2:0', dimensions: 384 }, /embeds in 256, 512, 1024 dimensions, not 384/],
    [{ modelId: 'cohere.embed-english-v3', dimensions: 512 }, /embeds in 1024 dimensions/],
  ])('refuses a model or a size the adapter cannot embed with: %o', (props, message) => {
    expect(() => synthesize(props)).toThrow(message);
  });

  it.each(['AwsSolutions', 'Serverless'])('adds no unacknowledged cdk-nag %s findings', (pack) => {
    // Act & Assess
    expect(nagFindings(withModel, pack)).toEqual([]);
  });
});
