import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_ENDPOINT_VARIABLE, SEARCH_INDEX_VARIABLE } from '../../lib/constructs/search-collection.ts';
import { nagFindings, type SynthesizedApp, synthesizeProjectApp } from './support/fixture-app.ts';
import { logicalIdOf, statementsAllowing } from './support/template-queries.ts';

const RETRIEVAL_ENTRY = 'lambdas/capabilities/retrieval/retrieval.lambda.ts';

const synthesize = (openSearch?: { collectionName?: string }) => synthesizeProjectApp(openSearch && { openSearch });

describe('Construct: SearchCollection', () => {
  let withCollection: SynthesizedApp;
  beforeAll(() => {
    withCollection = synthesize({});
  });
  afterAll(() => withCollection.dispose());

  it('is absent by default: the embedded index needs no collection', () => {
    // Prepare & Act
    const plain = synthesize();

    // Assess
    for (const type of ['Collection', 'SecurityPolicy', 'AccessPolicy'])
      plain.template.resourceCountIs(`AWS::OpenSearchServerless::${type}`, 0);
    expect(plain.stack.searchCollection).toBeUndefined();
    plain.dispose();
  });

  it('is a vector search collection encrypted with the tenant key, reachable only with signed requests', () => {
    // Prepare
    const { template, stack } = withCollection;
    const keyArn = { 'Fn::GetAtt': [logicalIdOf(stack.encryptionKey.key), 'Arn'] };

    // Assess
    template.hasResourceProperties('AWS::OpenSearchServerless::Collection', {
      Name: 'memory-hub-dev',
      Type: 'VECTORSEARCH',
    });
    template.hasResourceProperties('AWS::OpenSearchServerless::SecurityPolicy', {
      Name: 'memory-hub-dev-enc',
      Type: 'encryption',
      Policy: {
        'Fn::Join': [
          '',
          [
            '{"Rules":[{"ResourceType":"collection","Resource":["collection/memory-hub-dev"]}],"AWSOwnedKey":false,"KmsARN":"',
            keyArn,
            '"}',
          ],
        ],
      },
    });
    template.hasResourceProperties('AWS::OpenSearchServerless::SecurityPolicy', {
      Name: 'memory-hub-dev-net',
      Type: 'network',
      Policy:
        '[{"Rules":[{"ResourceType":"collection","Resource":["collection/memory-hub-dev"]}],"AllowFromPublic":true}]',
    });
    const collectionId = logicalIdOf(stack.searchCollection?.collection as never);
    const [collection] = Object.values(template.findResources('AWS::OpenSearchServerless::Collection'));
    expect(collection?.DependsOn).toEqual(
      expect.arrayContaining([
        logicalIdOf(stack.searchCollection?.encryptionPolicy as never),
        logicalIdOf(stack.searchCollection?.networkPolicy as never),
      ]),
    );
    expect(collectionId).toBeDefined();
  });

  it('grants only the retrieval functions, each only what it needs on the deployment index', () => {
    // Prepare
    const { template, stack } = withCollection;
    const searchers = stack.apiFunctions.specs
      .filter((spec) => spec.entry === RETRIEVAL_ENTRY)
      .map((spec) => stack.apiFunctions.functions.get(spec.key)?.role);
    // The consumer, and the step runner for the daily search index rebuild.
    const indexers = [
      stack.eventConsumers.consumer('searchIndexConsumer').consumer.role,
      stack.workflows.stepRunner.role,
    ];
    expect(searchers.length).toBeGreaterThan(0);
    const [policy] = Object.values(template.findResources('AWS::OpenSearchServerless::AccessPolicy'));
    const rendered = JSON.stringify(policy?.Properties.Policy).replaceAll('\\"', '"');

    // Assess: the data-access policy names exactly these roles, by statement
    for (const role of [...searchers, ...indexers]) expect(rendered).toContain(logicalIdOf(role as never));
    const otherRoles = Object.keys(template.findResources('AWS::IAM::Role')).filter(
      (id) => ![...searchers, ...indexers].some((role) => logicalIdOf(role as never) === id),
    );
    for (const id of otherRoles) expect(rendered).not.toContain(`"${id}"`);
    expect(rendered).toContain('index/memory-hub-dev/memory-hub-search');
    expect(rendered).toContain('["aoss:DescribeIndex","aoss:ReadDocument"]');
    expect(rendered).toContain('["aoss:CreateIndex","aoss:DescribeIndex","aoss:ReadDocument","aoss:WriteDocument"]');
    expect(rendered).not.toContain('aoss:*');
    // IAM: the data plane's one action, on this collection only
    const collectionArn = { 'Fn::GetAtt': [logicalIdOf(stack.searchCollection?.collection as never), 'Arn'] };
    for (const role of [...searchers, ...indexers])
      expect(statementsAllowing(template, role as never, 'aoss:APIAccessAll')).toEqual([
        { Effect: 'Allow', Action: 'aoss:APIAccessAll', Resource: collectionArn },
      ]);
  });

  it('tells the functions the endpoint and the index', () => {
    // Assess
    withCollection.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          [SEARCH_ENDPOINT_VARIABLE]: {
            'Fn::GetAtt': [
              logicalIdOf(withCollection.stack.searchCollection?.collection as never),
              'CollectionEndpoint',
            ],
          },
          [SEARCH_INDEX_VARIABLE]: 'memory-hub-search',
        }),
      },
    });
  });

  it('refuses a collection name the service would refuse', () => {
    // Act & Assess
    expect(() => synthesize({ collectionName: 'Memory_Hub' })).toThrow(/Invalid collection name/);
  });

  it.each(['AwsSolutions', 'Serverless'])('adds no unacknowledged cdk-nag %s findings', (pack) => {
    // Act & Assess
    expect(nagFindings(withCollection, pack)).toEqual([]);
  });
});
