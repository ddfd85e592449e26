import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_PARAMETER_INITIAL_VALUE } from '../../lib/constructs/parameters.ts';
import { createMemoryHubApp } from '../../lib/memory-hub-app.ts';
import { OPENAPI_DOCUMENT_PATH, WORKFLOWS_DOCUMENT_PATH } from '../../lib/memory-hub-stack.ts';
import { groupOperationsByFunction, readApiOperations } from '../../lib/openapi-operations.ts';
import { loadWorkflowsDocument } from '../../lib/workflow-policies.ts';
import { type SynthesizedApp, synthesizeApp } from './support/fixture-app.ts';
import { actionsOf, logicalIdOf, statementsAllowing } from './support/template-queries.ts';

/** The cdk-nag packs every synth runs (`Validations.of(app).addPlugins(...)`). */
const NAG_PACKS = ['AwsSolutions', 'Serverless'] as const;

interface ValidationReport {
  readonly pluginReports: readonly {
    readonly pluginName: string;
    readonly violations: readonly ReportedViolation[];
    readonly suppressedViolations?: readonly (ReportedViolation & {
      readonly acknowledgedId: string;
      readonly acknowledgedAt: string;
      readonly reason: string;
    })[];
  }[];
}

interface ReportedViolation {
  readonly ruleName: string;
  readonly severity: string;
  readonly violatingConstructs: readonly { readonly constructPath: string }[];
}

/** Every `Validations.of(x).acknowledge(...)` in the app, as `{path} {id}`. */
function acknowledgementsIn(root: IConstruct): { where: string; reason: string }[] {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === 'aws:cdk:acknowledged-rules')
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          where: `${construct.node.path} ${id}`,
          reason,
        })),
      ),
  );
}

describe('App: Memory Hub (the real OpenAPI document)', () => {
  let synthesized: SynthesizedApp;
  let report: ValidationReport;

  beforeAll(() => {
    // Prepare & Act: the app as `npx cdk synth` builds it, but reporting findings instead of throwing.
    synthesized = synthesizeApp({
      openApiDocumentPath: OPENAPI_DOCUMENT_PATH,
      sources: 'project',
      stage: 'dev',
      cloudFormationValidation: true,
      bundle: true,
      context: { '@aws-cdk/core:failSynthOnValidationErrors': false },
    });
    report = JSON.parse(readFileSync(join(synthesized.assembly.directory, 'validation-report.json'), 'utf8'));
  });
  afterAll(() => synthesized.dispose());

  it('synthesizes one stack named MemoryHub-{stage}', () => {
    // Assess
    expect(synthesized.assembly.stacks.map((stack) => stack.stackName)).toEqual(['MemoryHub-dev']);
  });

  it.each(NAG_PACKS)('has no unacknowledged cdk-nag %s findings, errors or warnings', (pack) => {
    // Prepare
    const checks = report.pluginReports.find((plugin) => plugin.pluginName === pack);
    const findings = (checks?.violations ?? []).flatMap((violation) =>
      violation.violatingConstructs.map(
        (where) => `${violation.severity} ${violation.ruleName} at ${where.constructPath}`,
      ),
    );

    // Assess
    expect(checks, `the ${pack} checks ran`).toBeDefined();
    expect(findings).toEqual([]);
  });

  it('has no findings from any other validation either (CloudFormation rules, annotations)', () => {
    // Prepare
    const findings = report.pluginReports
      .filter((plugin) => !(NAG_PACKS as readonly string[]).includes(plugin.pluginName))
      .flatMap((plugin) => plugin.violations.map((violation) => `${plugin.pluginName}: ${violation.ruleName}`));

    // Assess
    expect(findings).toEqual([]);
  });

  it('uses every acknowledgement, and each gives a reason', () => {
    // Prepare
    const acknowledgements = acknowledgementsIn(synthesized.app);
    const used = new Set(
      report.pluginReports.flatMap((plugin) =>
        (plugin.suppressedViolations ?? []).map(
          (violation) => `${violation.acknowledgedAt} ${violation.acknowledgedId}`,
        ),
      ),
    );

    // Assess
    expect(acknowledgements.length).toBeGreaterThan(0);
    expect(acknowledgements.map(({ where }) => where).filter((where) => !used.has(where))).toEqual([]);
    for (const { where, reason } of acknowledgements) expect(reason.length, where).toBeGreaterThan(40);
  });

  it('creates a route for every operation of the document', () => {
    // Prepare
    const operations = readApiOperations(synthesized.document);

    // Assess
    synthesized.template.resourceCountIs('AWS::ApiGatewayV2::Route', operations.length);
    for (const operation of operations) {
      synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: `${operation.method} ${operation.path}`,
        AuthorizationType: operation.authenticated ? 'JWT' : 'NONE',
      });
    }
  });

  it('builds a state machine for every workflow of workflows.json and creates the configuration parameter', () => {
    // Prepare
    const workflows = loadWorkflowsDocument(WORKFLOWS_DOCUMENT_PATH).workflows;
    const [parameter] = Object.values(synthesized.template.findResources('AWS::SSM::Parameter'));

    // Assess
    expect([...synthesized.stack.workflows.stateMachines.keys()]).toEqual(workflows.map(({ name }) => name));
    expect(parameter?.Properties.Name).toBe('/memory-hub/dev/config');
    expect(parameter?.Properties.Value).toBe(CONFIG_PARAMETER_INITIAL_VALUE);
  });

  it('lets exactly the functions whose operations start workflows start every state machine', () => {
    // Prepare
    const specs = groupOperationsByFunction(readApiOperations(synthesized.document));
    const byRef = (a: { Ref: string }, b: { Ref: string }) => a.Ref.localeCompare(b.Ref);
    const stateMachineRefs = [...synthesized.stack.workflows.stateMachines.values()]
      .map((stateMachine) => ({ Ref: logicalIdOf(stateMachine) }))
      .sort(byRef);

    // Assess
    expect(specs.some((spec) => spec.startsWorkflows)).toBe(true);
    for (const spec of specs) {
      const serviceFunction = synthesized.stack.apiFunctions.functions.get(spec.key);
      if (serviceFunction === undefined) throw new Error(`no function for ${spec.key}`);
      const starts = statementsAllowing(synthesized.template, serviceFunction.role, 'states:StartExecution');
      expect(
        (starts.flatMap((statement) => [statement.Resource].flat()) as { Ref: string }[]).sort(byRef),
        spec.key,
      ).toEqual(spec.startsWorkflows ? stateMachineRefs : []);
      if (spec.access === 'read')
        expect(actionsOf(synthesized.template, serviceFunction.role)).not.toContain('dynamodb:PutItem');
    }
  });

  it('grants function roles nothing on every resource but sending traces and, for the relay, listing streams', () => {
    // Prepare: the roles Lambda assumes, and what each may do on `*` (the IAM5 acknowledgements' whole reach)
    const roles = synthesized.template.findResources('AWS::IAM::Role', {
      Properties: {
        AssumeRolePolicyDocument: { Statement: [{ Principal: { Service: 'lambda.amazonaws.com' } }] },
      },
    });
    const onEverything = new Map<string, Set<string>>();
    for (const policy of Object.values(synthesized.template.findResources('AWS::IAM::Policy'))) {
      const statements = policy.Properties.PolicyDocument.Statement as {
        Action: string | string[];
        Resource: unknown;
      }[];
      const actions = statements.filter((statement) => statement.Resource === '*').flatMap((s) => [s.Action].flat());
      for (const { Ref: role } of policy.Properties.Roles as { Ref?: string }[])
        if (role !== undefined && role in roles)
          onEverything.set(role, new Set([...(onEverything.get(role) ?? []), ...actions]));
    }
    const traces = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'];
    const relay = logicalIdOf(synthesized.stack.outboxRelay.relay.role);

    // Assess
    expect(onEverything.size).toBe(Object.keys(roles).length);
    for (const [role, actions] of onEverything)
      expect({ role, actions: [...actions].sort() }).toEqual({
        role,
        actions: (role === relay ? [...traces, 'dynamodb:ListStreams'] : traces).sort(),
      });
  });

  it('traces the background functions actively, and the request functions what their caller sampled', () => {
    // Prepare
    const functions = Object.entries(synthesized.template.findResources('AWS::Lambda::Function'));
    const requestFunctions = new Set(
      [...synthesized.stack.apiFunctions.functions.values()].map((serviceFunction) =>
        synthesized.stack.getLogicalId(serviceFunction.function.node.defaultChild as CfnFunction),
      ),
    );

    // Assess
    expect(functions.length).toBeGreaterThan(20);
    expect(requestFunctions.size).toBeGreaterThan(5);
    for (const [id, resource] of functions)
      expect({ id, tracing: resource.Properties.TracingConfig }).toEqual({
        id,
        tracing: { Mode: requestFunctions.has(id) ? 'PassThrough' : 'Active' },
      });
  });

  it('logs JSON from every function, and of Lambda’s own lines only warnings and errors', () => {
    // Prepare
    const functions = Object.entries(synthesized.template.findResources('AWS::Lambda::Function'));

    // Assess
    expect(functions.length).toBeGreaterThan(20);
    for (const [id, resource] of functions)
      expect({ id, logging: resource.Properties.LoggingConfig }).toEqual({
        id,
        logging: {
          LogFormat: 'JSON',
          SystemLogLevel: 'WARN',
          ApplicationLogLevel: 'INFO',
          LogGroup: expect.anything(),
        },
      });
  });

  it('never invokes a consumer for the record kinds it ignores: each rule leaves them out', () => {
    // Prepare
    const detailOf = (handler: string) =>
      synthesized.template.toJSON().Resources[logicalIdOf(synthesized.stack.eventConsumers.consumer(handler).rule)]
        .Properties.EventPattern.detail;

    // Assess: session events are audited by the beliefs they teach, a task's blackboard and evidence by the
    // task revisions they move, a procedure pool's change log by the procedure revisions it points at
    expect(detailOf('recordAudit')).toEqual({
      record_kind: [
        { 'anything-but': ['idempotency', 'session-events', 'procedure-pool', 'task-record', 'task-evidence'] },
      ],
    });
  });

  it('deploys no head-projection consumer: the relay moves heads itself, with no content key', () => {
    // Assess: no rule or function for it, and the relay's role holds neither the content keys' grant nor the
    // branch key store's (what a head copied as stored needs: the table only)
    expect(() => synthesized.stack.eventConsumers.consumer('projectHead')).toThrow();
    const relayPolicies = JSON.stringify(
      Object.values(synthesized.template.findResources('AWS::IAM::Policy')).filter((policy) =>
        JSON.stringify(policy.Properties.Roles).includes(logicalIdOf(synthesized.stack.outboxRelay.relay.role)),
      ),
    );
    expect(relayPolicies).toContain('dynamodb:PutItem');
    expect(relayPolicies).not.toContain('kms:EncryptionContextKeys');
    expect(relayPolicies).not.toContain(logicalIdOf(synthesized.stack.branchKeyStore.table));
  });

  it('synthesizes environment-agnostic when no account or region is given', () => {
    // Assess
    expect(synthesized.stack.environment).toBe('aws://unknown-account/unknown-region');
  });

  it('refuses a stage that cannot name resources', () => {
    // Act & Assess
    expect(() => createMemoryHubApp({ stage: 'Prod_1' })).toThrow(/Invalid stage "Prod_1"/);
  });
});
