import type { CfnElement } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceFunction } from '../../lib/constructs/service-function.ts';
import { readApiOperations } from '../../lib/openapi-operations.ts';
import { type SynthesizedApp, synthesizeApp } from './support/fixture-app.ts';

interface PolicyStatement {
  readonly Action: string | string[];
  readonly Resource: unknown;
}

const THINGS_ENTRY = 'test/infra/fixtures/handlers/things.lambda.ts';
const SYSTEM_ENTRY = 'test/infra/fixtures/handlers/system.lambda.ts';
const ADMIN_ENTRY = 'test/infra/fixtures/handlers/admin.lambda.ts';

describe('Construct: ApiFunctions', () => {
  let synthesized: SynthesizedApp;

  const logicalIdOf = (element: CfnElement): string => synthesized.stack.getLogicalId(element);
  const functionFor = (entry: string, handler: string): ServiceFunction => {
    const serviceFunction = synthesized.stack.apiFunctions.functions.get(`${entry}#${handler}`);
    if (serviceFunction === undefined) throw new Error(`no function for ${entry}#${handler}`);
    return serviceFunction;
  };
  const statementsOf = (serviceFunction: ServiceFunction): PolicyStatement[] => {
    const roleLogicalId = logicalIdOf(serviceFunction.role.node.defaultChild as CfnElement);
    const policies = synthesized.template.findResources('AWS::IAM::Policy', {
      Properties: { Roles: Match.arrayWith([{ Ref: roleLogicalId }]) },
    });
    return Object.values(policies).flatMap((policy) => policy.Properties.PolicyDocument.Statement as PolicyStatement[]);
  };
  const actionsOf = (serviceFunction: ServiceFunction): string[] =>
    statementsOf(serviceFunction).flatMap((statement) => statement.Action);

  beforeAll(() => {
    // Prepare & Act
    synthesized = synthesizeApp();
  });
  afterAll(() => synthesized.dispose());

  it('creates one function per distinct (entry, handler) pair of the document', () => {
    // Assess
    expect([...synthesized.stack.apiFunctions.functions.keys()].sort()).toEqual(
      [
        `${SYSTEM_ENTRY}#getHealth`,
        `${THINGS_ENTRY}#listThings`,
        `${THINGS_ENTRY}#createThing`,
        `${THINGS_ENTRY}#getThing`,
        `${THINGS_ENTRY}#deleteThing`,
        `${ADMIN_ENTRY}#startWorkflow`,
      ].sort(),
    );
    // The six API functions, the pre-token-generation trigger, relay and sweep, two consumers, the step runner.
    synthesized.template.resourceCountIs('AWS::Lambda::Function', 12);
  });

  it('runs every function on Node.js 24, arm64, with explicit memory and timeout and a log group with retention', () => {
    // Prepare
    const functions = synthesized.template.findResources('AWS::Lambda::Function');
    const logGroups = synthesized.template.findResources('AWS::Logs::LogGroup');

    // Assess
    for (const [logicalId, resource] of Object.entries(functions)) {
      const properties = resource.Properties;
      expect(properties.Runtime, logicalId).toBe('nodejs24.x');
      expect(properties.Architectures, logicalId).toEqual(['arm64']);
      expect(properties.MemorySize, logicalId).toEqual(expect.any(Number));
      expect(properties.Timeout, logicalId).toEqual(expect.any(Number));
      expect(properties.Handler, logicalId).toMatch(/^index\.[A-Za-z_$][\w$]*$/);
      const logGroupLogicalId = properties.LoggingConfig?.LogGroup?.Ref as string;
      expect(logGroups[logGroupLogicalId]?.Properties.RetentionInDays, logicalId).toBeGreaterThan(0);
    }
  });

  it('sizes API functions at 512 MB and 10 s and tells them their stage, table, key and configuration', () => {
    // Prepare
    const getThing = functionFor(THINGS_ENTRY, 'getThing');

    // Assess
    synthesized.template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.getThing',
      MemorySize: 512,
      Timeout: 10,
      Environment: {
        Variables: {
          MEMORY_HUB_STAGE: 'test',
          MEMORY_HUB_TABLE_NAME: {
            Ref: logicalIdOf(synthesized.stack.memoryTable.table.node.defaultChild as CfnElement),
          },
          MEMORY_HUB_KEY_ARN: {
            'Fn::GetAtt': [logicalIdOf(synthesized.stack.encryptionKey.key.node.defaultChild as CfnElement), 'Arn'],
          },
          MEMORY_HUB_CONFIG_PARAMETER: {
            Ref: logicalIdOf(synthesized.stack.parameters.config.node.defaultChild as CfnElement),
          },
        },
      },
    });
    expect(getThing.function.runtime.name).toBe('nodejs24.x');
  });

  it('lets every function with storage access read the configuration parameter, and only that parameter', () => {
    // Prepare
    const parameterName = { Ref: logicalIdOf(synthesized.stack.parameters.config.node.defaultChild as CfnElement) };

    // Assess
    for (const spec of synthesized.stack.apiFunctions.specs.filter(({ access }) => access !== 'none')) {
      const statements = statementsOf(functionFor(spec.entry, spec.handler)).filter((statement) =>
        [statement.Action].flat().includes('ssm:GetParameter'),
      );
      expect(statements, spec.key).toHaveLength(1);
      expect(JSON.stringify(statements[0]?.Resource), spec.key).toContain(JSON.stringify(parameterName));
    }
  });

  it('gives a function without storage access neither the configuration nor workflows', () => {
    // Assess
    synthesized.template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.getHealth',
      Environment: {
        Variables: Match.objectLike({
          MEMORY_HUB_CONFIG_PARAMETER: Match.absent(),
          MEMORY_HUB_STATE_MACHINES: Match.absent(),
        }),
      },
    });
  });

  it('lets a function whose operations start workflows start every state machine, and tells it their ARNs', () => {
    // Prepare
    const startWorkflow = functionFor(ADMIN_ENTRY, 'startWorkflow');
    const stateMachines = [...synthesized.stack.workflows.stateMachines];
    const starts = statementsOf(startWorkflow).filter((statement) => statement.Action === 'states:StartExecution');
    const resource = synthesized.template.toJSON().Resources[
      logicalIdOf(startWorkflow.function.node.defaultChild as CfnElement)
    ] as { Properties: { Environment: { Variables: Record<string, unknown> } } };
    const [separator, parts] = (
      resource.Properties.Environment.Variables.MEMORY_HUB_STATE_MACHINES as { 'Fn::Join': [string, unknown[]] }
    )['Fn::Join'];
    const rendered = JSON.parse(
      parts.map((part) => (typeof part === 'string' ? part : `<${(part as { Ref: string }).Ref}>`)).join(separator),
    );

    // Assess
    expect(stateMachines.length).toBeGreaterThan(0);
    const byRef = (a: { Ref: string }, b: { Ref: string }) => a.Ref.localeCompare(b.Ref);
    expect((starts.flatMap((statement) => [statement.Resource].flat()) as { Ref: string }[]).sort(byRef)).toEqual(
      stateMachines
        .map(([, stateMachine]) => ({ Ref: logicalIdOf(stateMachine.node.defaultChild as CfnElement) }))
        .sort(byRef),
    );
    expect(rendered).toEqual(
      Object.fromEntries(
        stateMachines.map(([name, stateMachine]) => [
          name,
          `<${logicalIdOf(stateMachine.node.defaultChild as CfnElement)}>`,
        ]),
      ),
    );
  });

  it('lets no other API function start workflows', () => {
    // Assess
    for (const [key, serviceFunction] of synthesized.stack.apiFunctions.functions) {
      if (key === `${ADMIN_ENTRY}#startWorkflow`) continue;
      expect(actionsOf(serviceFunction), key).not.toContain('states:StartExecution');
    }
  });

  it('gives functions their own roles without AWS managed policies', () => {
    // Assess
    for (const serviceFunction of synthesized.stack.apiFunctions.functions.values()) {
      const roleLogicalId = logicalIdOf(serviceFunction.role.node.defaultChild as CfnElement);
      const role = synthesized.template.toJSON().Resources[roleLogicalId];
      expect(role.Properties.ManagedPolicyArns, roleLogicalId).toBeUndefined();
    }
  });

  it('lets a read function read and decrypt, but never write (beyond its callers’ client quota)', () => {
    // Prepare: the quota grant, conditioned on the quota items, is client-quota-grant.test.ts's
    const actions = statementsOf(functionFor(THINGS_ENTRY, 'getThing'))
      .filter((statement) => !JSON.stringify(statement).includes('dynamodb:LeadingKeys'))
      .flatMap((statement) => statement.Action);

    // Assess
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'kms:Decrypt']));
    for (const forbidden of [
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchWriteItem',
      'kms:Encrypt',
      'kms:GenerateDataKey',
    ]) {
      expect(actions).not.toContain(forbidden);
    }
  });

  it('lets a write function write, never make a data key outside a branch key nor encrypt directly', () => {
    // Prepare
    const actions = actionsOf(functionFor(THINGS_ENTRY, 'createThing'));

    // Assess
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:Query', 'kms:Decrypt']));
    expect(actions).not.toContain('kms:Encrypt');
    expect(actions).not.toContain('kms:GenerateDataKey');
  });

  it('gives a function without storage access nothing but its log group and its traces', () => {
    // Prepare
    const actions = actionsOf(functionFor(SYSTEM_ENTRY, 'getHealth'));

    // Assess
    expect(actions.sort()).toEqual([
      'logs:CreateLogStream',
      'logs:PutLogEvents',
      'xray:PutTelemetryRecords',
      'xray:PutTraceSegments',
    ]);
  });

  it('creates every route of the document, with the JWT authorizer unless the operation is public', () => {
    // Prepare
    const authorizerLogicalId = Object.keys(synthesized.template.findResources('AWS::ApiGatewayV2::Authorizer'))[0];
    const operations = readApiOperations(synthesized.document);

    // Assess
    synthesized.template.resourceCountIs('AWS::ApiGatewayV2::Route', operations.length);
    for (const operation of operations) {
      const routeKey = `${operation.method} ${operation.path}`;
      synthesized.template.hasResourceProperties(
        'AWS::ApiGatewayV2::Route',
        operation.authenticated
          ? { RouteKey: routeKey, AuthorizationType: 'JWT', AuthorizerId: { Ref: authorizerLogicalId } }
          : { RouteKey: routeKey, AuthorizationType: 'NONE', AuthorizerId: Match.absent() },
      );
    }
  });

  it('sends every route naming a handler to that handler’s one function', () => {
    // Prepare
    const getThing = functionFor(THINGS_ENTRY, 'getThing');
    const functionLogicalId = logicalIdOf(getThing.function.node.defaultChild as CfnElement);
    const integrations = synthesized.template.findResources('AWS::ApiGatewayV2::Integration', {
      Properties: { IntegrationUri: { 'Fn::GetAtt': [functionLogicalId, 'Arn'] } },
    });
    const [integrationLogicalId] = Object.keys(integrations);

    // Assess
    expect(Object.keys(integrations)).toHaveLength(1);
    for (const routeKey of ['GET /v1/things/{id}', 'GET /v1/projects/{projectId}/things/{id}']) {
      synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: routeKey,
        Target: { 'Fn::Join': ['', ['integrations/', { Ref: integrationLogicalId }]] },
      });
    }
  });
});

describe('Construct: ApiFunctions, request tracing', () => {
  const tracingModes = (synthesized: SynthesizedApp): { request: string[]; background: string[] } => {
    const requestIds = new Set(
      [...synthesized.stack.apiFunctions.functions.values()].map((serviceFunction) =>
        synthesized.stack.getLogicalId(serviceFunction.function.node.defaultChild as CfnElement),
      ),
    );
    const modes = { request: [] as string[], background: [] as string[] };
    for (const [id, resource] of Object.entries(synthesized.template.findResources('AWS::Lambda::Function')))
      modes[requestIds.has(id) ? 'request' : 'background'].push(resource.Properties.TracingConfig.Mode);
    return modes;
  };

  it('traces actively on every function when the context asks for requestTracing=active', () => {
    // Prepare & Act
    const synthesized = synthesizeApp({ context: { requestTracing: 'active' } });

    // Assess
    try {
      const modes = tracingModes(synthesized);
      expect(new Set(modes.request)).toEqual(new Set(['Active']));
      expect(new Set(modes.background)).toEqual(new Set(['Active']));
    } finally {
      synthesized.dispose();
    }
  });

  it('passes the caller’s sampling through on the request functions by default, the others tracing actively', () => {
    // Prepare & Act
    const synthesized = synthesizeApp();

    // Assess
    try {
      const modes = tracingModes(synthesized);
      expect(modes.request).toHaveLength(6);
      expect(new Set(modes.request)).toEqual(new Set(['PassThrough']));
      expect(new Set(modes.background)).toEqual(new Set(['Active']));
    } finally {
      synthesized.dispose();
    }
  });

  it('refuses a requestTracing that is neither active nor pass-through', () => {
    // Act & Assess
    expect(() => synthesizeApp({ context: { requestTracing: 'sometimes' } })).toThrow(
      'Invalid requestTracing "sometimes": expected active or pass-through',
    );
  });
});
