import { Template } from 'aws-cdk-lib/assertions';
import { UserPool } from 'aws-cdk-lib/aws-cognito';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_LOG_FIELDS, DEFAULT_THROTTLE, MemoryHubHttpApi } from '../../lib/constructs/http-api.ts';
import { OPENAPI_DOCUMENT_PATH } from '../../lib/memory-hub-stack.ts';
import { readApiOperations } from '../../lib/openapi-operations.ts';
import { bareStack, type SynthesizedApp, synthesizeApp } from './support/fixture-app.ts';

describe('Construct: MemoryHubHttpApi', () => {
  let synthesized: SynthesizedApp;
  let userPoolLogicalId: string;
  let clientLogicalIds: string[];

  beforeAll(() => {
    // Prepare & Act
    synthesized = synthesizeApp();
    userPoolLogicalId = Object.keys(synthesized.template.findResources('AWS::Cognito::UserPool'))[0] ?? 'missing';
    clientLogicalIds = Object.keys(synthesized.template.findResources('AWS::Cognito::UserPoolClient'));
  });
  afterAll(() => synthesized.dispose());

  it('is an HTTP API', () => {
    // Assess
    synthesized.template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
  });

  it('authorises with a JWT authorizer whose issuer is the user pool and audience its app clients', () => {
    // Assess
    synthesized.template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 1);
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: {
        Audience: clientLogicalIds.map((id) => ({ Ref: id })),
        Issuer: {
          'Fn::Join': [
            '',
            ['https://cognito-idp.', { Ref: 'AWS::Region' }, '.amazonaws.com/', { Ref: userPoolLogicalId }],
          ],
        },
      },
    });
  });

  it('writes JSON access logs that identify nothing but the request to a log group with retention', () => {
    // Prepare
    const stages = Object.values(synthesized.template.findResources('AWS::ApiGatewayV2::Stage'));
    const settings = stages[0]?.Properties.AccessLogSettings as
      | { DestinationArn: { 'Fn::GetAtt': [string, string] }; Format: string }
      | undefined;
    if (settings === undefined) throw new Error('the stage has no access log settings');
    const format = JSON.parse(settings.Format) as Record<string, string>;
    const [logGroupLogicalId] = settings.DestinationArn['Fn::GetAtt'];
    const logGroups = synthesized.template.findResources('AWS::Logs::LogGroup');

    // Assess
    expect(stages).toHaveLength(1);
    expect(format).toEqual(ACCESS_LOG_FIELDS);
    expect(format.requestId).toBe('$context.requestId');
    expect(Object.values(format).join(' ')).not.toMatch(/identity|sourceIp|userAgent|claims|\$context\.path|body/i);
    expect(logGroups[logGroupLogicalId]?.Properties.RetentionInDays).toBe(30);
  });

  it('throttles the $default stage with the default rate and burst', () => {
    // Assess
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: {
        ThrottlingRateLimit: DEFAULT_THROTTLE.rateLimit,
        ThrottlingBurstLimit: DEFAULT_THROTTLE.burstLimit,
      },
    });
  });

  it('takes the stage throttling from its props', () => {
    // Prepare
    const stack = bareStack();
    const userPool = new UserPool(stack, 'UserPool');
    const client = userPool.addClient('Client');

    // Act
    new MemoryHubHttpApi(stack, 'Api', {
      userPool,
      userPoolClients: [client],
      throttle: { rateLimit: 10, burstLimit: 20 },
    });

    // Assess
    Template.fromStack(stack).hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
    });
  });

  it('refuses to be built without an app client to accept tokens from', () => {
    // Prepare
    const stack = bareStack();
    const userPool = new UserPool(stack, 'UserPool');

    // Act & Assess
    expect(() => new MemoryHubHttpApi(stack, 'Api', { userPool, userPoolClients: [] })).toThrow(/user pool client/);
  });
});

describe('Routes of the generated document: OAuth scopes', () => {
  let synthesized: SynthesizedApp;

  beforeAll(() => {
    // Prepare & Act: the service's own document, so every operation it has is deployed and checked.
    synthesized = synthesizeApp({ openApiDocumentPath: OPENAPI_DOCUMENT_PATH });
  });
  afterAll(() => synthesized.dispose());

  it('requires on every authenticated route the scope its operation declares, and none on a public one', () => {
    // Prepare
    const operations = readApiOperations(synthesized.document);
    const routes = Object.values(synthesized.template.findResources('AWS::ApiGatewayV2::Route'));
    const scopesByRouteKey = new Map(
      routes.map((route) => [route.Properties.RouteKey as string, route.Properties.AuthorizationScopes]),
    );

    // Assess
    expect(routes).toHaveLength(operations.length);
    for (const operation of operations) {
      const routeKey = `${operation.method} ${operation.path}`;
      expect(scopesByRouteKey.get(routeKey), routeKey).toEqual(
        operation.authenticated ? [operation.requiredScope] : undefined,
      );
    }
    expect(operations.filter((operation) => operation.authenticated).length).toBeGreaterThan(20);
  });

  it('requires only scopes the user pool’s resource server declares', () => {
    // Prepare
    const [server] = Object.values(synthesized.template.findResources('AWS::Cognito::UserPoolResourceServer'));
    const declared = ((server?.Properties.Scopes ?? []) as { ScopeName: string }[]).map(
      ({ ScopeName }) => `${server?.Properties.Identifier}/${ScopeName}`,
    );
    const required = new Set(
      Object.values(synthesized.template.findResources('AWS::ApiGatewayV2::Route')).flatMap(
        (route) => (route.Properties.AuthorizationScopes ?? []) as string[],
      ),
    );

    // Assess
    expect([...required].sort()).toEqual([...declared].sort());
  });

  it('gives a read-only client no route that writes', () => {
    // Prepare: every route but those whose operation reads only (a GET, or a POST that only queries, as search)
    const reading = new Set(
      readApiOperations(synthesized.document)
        .filter((operation) => operation.method === 'GET' || operation.lambda.access === 'read')
        .map((operation) => `${operation.method} ${operation.path}`),
    );
    const routes = Object.values(synthesized.template.findResources('AWS::ApiGatewayV2::Route'));
    const writes = routes.filter((route) => !reading.has(route.Properties.RouteKey as string));

    // Assess
    expect(writes.length).toBeGreaterThan(10);
    for (const route of writes) {
      const [scope, ...more] = (route.Properties.AuthorizationScopes ?? []) as string[];
      expect(more, route.Properties.RouteKey).toEqual([]);
      expect(['memory-hub/memory.write', 'memory-hub/memory.admin'], route.Properties.RouteKey).toContain(scope);
    }
  });
});
