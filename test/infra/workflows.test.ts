import { readFileSync } from 'node:fs';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { DefinitionBody, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caughtStateOf, defineWorkflow, FAILED_STATE, SUCCEEDED_STATE } from '../../lib/constructs/workflows.ts';
import { WORKFLOWS_DOCUMENT_PATH } from '../../lib/memory-hub-stack.ts';
import { readWorkflowsDocument, type WorkflowPolicy } from '../../lib/workflow-policies.ts';
import { bareStack, type SynthesizedApp, synthesizeApp } from './support/fixture-app.ts';
import {
  actionsOf,
  logicalIdOf,
  renderDefinition,
  type StateMachineDefinition,
  statementsAllowing,
} from './support/template-queries.ts';

const STEP_RUNNER = 'STEP_RUNNER';

/** The real, committed policies: the state machines are built from these. */
const document = readWorkflowsDocument(JSON.parse(readFileSync(WORKFLOWS_DOCUMENT_PATH, 'utf8')));

/** Asserts a definition is exactly what `policy` says, step by step (see the mapping in workflows.ts). */
function expectDefinitionOf(definition: StateMachineDefinition, policy: WorkflowPolicy): void {
  const { States: states } = definition;
  expect(definition.StartAt).toBe(policy.steps[0]?.name);
  policy.steps.forEach((step, index) => {
    const state = states[step.name];
    const next = policy.steps[index + 1]?.name ?? SUCCEEDED_STATE;
    expect(state, step.name).toMatchObject({
      Type: 'Task',
      Next: next,
      OutputPath: '$.Payload',
      Parameters: {
        FunctionName: STEP_RUNNER,
        Payload: { workflow: policy.name, step: step.name, 'runId.$': '$$.Execution.Name', 'input.$': '$' },
      },
    });
    expect(state?.Resource).toMatch(/:states:::lambda:invoke$/);
    // Exactly the policy's retry: no Lambda service-exception retry added beside it.
    expect(state?.Retry, step.name).toEqual(
      step.retry.errors.length === 0
        ? undefined
        : [
            {
              ErrorEquals: step.retry.errors,
              IntervalSeconds: step.retry.intervalSeconds,
              MaxAttempts: step.retry.retries,
              BackoffRate: step.retry.backoffRate,
            },
          ],
    );
    expect(state?.Catch, step.name).toEqual(
      step.catch.errors.length === 0
        ? undefined
        : [{ ErrorEquals: step.catch.errors, ResultPath: '$.failure', Next: caughtStateOf(step.name) }],
    );
    if (step.catch.errors.length > 0) {
      expect(states[caughtStateOf(step.name)], step.name).toEqual({
        Type: 'Pass',
        Comment: expect.any(String),
        Parameters: { failedStep: step.name, 'errorCode.$': '$.failure.Error', 'cause.$': '$.failure.Cause' },
        ResultPath: '$.failure',
        Next: policy.onFailure,
      });
    }
  });
  expect(states[SUCCEEDED_STATE]).toEqual({ Type: 'Succeed' });
  expect(states[policy.onFailure]).toMatchObject({
    Type: 'Task',
    ResultPath: null,
    Next: FAILED_STATE,
    Parameters: {
      FunctionName: STEP_RUNNER,
      Payload: { workflow: policy.name, step: policy.onFailure, 'runId.$': '$$.Execution.Name', 'input.$': '$' },
    },
  });
  expect(states[policy.onFailure]?.Retry).toBeUndefined();
  expect(states[policy.onFailure]?.Catch).toBeUndefined();
  expect(states[FAILED_STATE]).toEqual({
    Type: 'Fail',
    ErrorPath: '$.failure.errorCode',
    CausePath: '$.failure.cause',
  });
  // Nothing else: one task per step, one caught state per catching step, the failure step and the two ends.
  const catching = policy.steps.filter((step) => step.catch.errors.length > 0).length;
  expect(Object.keys(states)).toHaveLength(policy.steps.length + catching + 3);
}

describe('Construct: Workflows', () => {
  let synthesized: SynthesizedApp;

  const definitionOf = (name: string): StateMachineDefinition => {
    const stateMachine = synthesized.stack.workflows.stateMachines.get(name);
    if (stateMachine === undefined) throw new Error(`no state machine for ${name}`);
    const resource = synthesized.template.toJSON().Resources[logicalIdOf(stateMachine)];
    const stepRunnerArn = JSON.stringify({
      'Fn::GetAtt': [logicalIdOf(synthesized.stack.workflows.stepRunner.function), 'Arn'],
    });
    // Only the step runner's ARN (and the partition) may appear as tokens.
    const join = resource.Properties.DefinitionString['Fn::Join'][1] as unknown[];
    for (const part of join.filter((item) => typeof item !== 'string')) {
      expect([stepRunnerArn, JSON.stringify({ Ref: 'AWS::Partition' })]).toContain(JSON.stringify(part));
    }
    const rendered = JSON.stringify(renderDefinition(resource.Properties.DefinitionString, '§'));
    return JSON.parse(rendered.replaceAll('"§"', `"${STEP_RUNNER}"`).replaceAll('§', 'aws'));
  };

  beforeAll(() => {
    // Prepare & Act
    synthesized = synthesizeApp();
  });
  afterAll(() => synthesized.dispose());

  it('builds one STANDARD state machine per workflow of workflows.json', () => {
    // Assess
    expect(document.workflows.length).toBeGreaterThan(0);
    synthesized.template.resourceCountIs('AWS::StepFunctions::StateMachine', document.workflows.length);
    expect([...synthesized.stack.workflows.stateMachines.keys()]).toEqual(document.workflows.map(({ name }) => name));
    for (const policy of document.workflows) {
      synthesized.template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
        StateMachineName: `memory-hub-test-${policy.name}`,
        StateMachineType: 'STANDARD',
      });
    }
  });

  it.each(document.workflows.map((policy) => [policy.name, policy] as const))(
    'turns every step of %s into a task with exactly its Retry and Catch, in order',
    (_, policy) => {
      // Act
      const definition = definitionOf(policy.name);

      // Assess
      expectDefinitionOf(definition, policy);
    },
  );

  it('logs every execution event without execution data to a log group with retention, and traces with X-Ray', () => {
    // Assess
    const resources = synthesized.template.toJSON().Resources;
    for (const workflow of synthesized.stack.workflows.workflows.values()) {
      expect(resources[logicalIdOf(workflow.stateMachine)].Properties).toMatchObject({
        LoggingConfiguration: {
          Level: 'ALL',
          IncludeExecutionData: false,
          Destinations: [
            { CloudWatchLogsLogGroup: { LogGroupArn: { 'Fn::GetAtt': [logicalIdOf(workflow.logGroup), 'Arn'] } } },
          ],
        },
        TracingConfiguration: { Enabled: true },
      });
      expect(synthesized.template.toJSON().Resources[logicalIdOf(workflow.logGroup)].Properties.RetentionInDays).toBe(
        30,
      );
    }
  });

  it('starts each scheduled workflow with EventBridge Scheduler and an empty input', () => {
    // Prepare
    const scheduled = document.workflows.filter((policy) => policy.schedule !== null);
    const deadLetterQueue = synthesized.stack.workflows.scheduleDeadLetterQueue;
    if (deadLetterQueue === undefined) throw new Error('scheduled workflows have no dead-letter queue');
    const deadLetterQueueLogicalId = logicalIdOf(deadLetterQueue.queue);

    // Assess
    expect(scheduled.map(({ name, schedule }) => [name, schedule])).toContainEqual(['retention-sweep', 'rate(1 day)']);
    for (const policy of scheduled) {
      const stateMachine = synthesized.stack.workflows.stateMachines.get(policy.name);
      if (stateMachine === undefined) throw new Error(`no state machine for ${policy.name}`);
      synthesized.template.hasResourceProperties('AWS::Scheduler::Schedule', {
        ScheduleExpression: policy.schedule,
        Target: {
          Arn: { Ref: logicalIdOf(stateMachine) },
          Input: '{}',
          RetryPolicy: Match.objectLike({ MaximumRetryAttempts: Match.anyValue() }),
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [deadLetterQueueLogicalId, 'Arn'] } },
        },
      });
    }
    // The sweep's schedule and one per scheduled workflow.
    synthesized.template.resourceCountIs('AWS::Scheduler::Schedule', 1 + scheduled.length);
  });

  it('runs every step in runWorkflowStep, which may write the table, use the key, read the configuration and publish', () => {
    // Prepare
    const stepRunner = synthesized.stack.workflows.stepRunner;
    const actions = actionsOf(synthesized.template, stepRunner.role);

    // Assess
    synthesized.template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.runWorkflowStep',
      Environment: {
        Variables: Match.objectLike({
          MEMORY_HUB_CONFIG_PARAMETER: { Ref: logicalIdOf(synthesized.stack.parameters.config) },
          MEMORY_HUB_EVENT_BUS_NAME: { Ref: logicalIdOf(synthesized.stack.eventBus.bus) },
        }),
      },
    });
    expect(actions).toEqual(
      expect.arrayContaining([
        'dynamodb:PutItem',
        'dynamodb:Query',
        'kms:Decrypt',
        'ssm:GetParameter',
        'events:PutEvents',
      ]),
    );
    expect(actions).not.toContain('kms:GenerateDataKey');
  });

  it('lets each state machine invoke the step runner and nothing else', () => {
    // Assess
    for (const stateMachine of synthesized.stack.workflows.stateMachines.values()) {
      const invokes = statementsAllowing(synthesized.template, stateMachine.role, 'lambda:InvokeFunction');
      expect(JSON.stringify(invokes.map((statement) => statement.Resource))).toBe(
        JSON.stringify([
          [
            { 'Fn::GetAtt': [logicalIdOf(synthesized.stack.workflows.stepRunner.function), 'Arn'] },
            {
              'Fn::Join': [
                '',
                [{ 'Fn::GetAtt': [logicalIdOf(synthesized.stack.workflows.stepRunner.function), 'Arn'] }, ':*'],
              ],
            },
          ],
        ]),
      );
    }
  });
});

describe('Function: defineWorkflow', () => {
  const policy: WorkflowPolicy = {
    name: 'reassessment',
    description: 'A policy unlike the committed ones: steps differ in retry, one catches nothing',
    schedule: null,
    steps: [
      {
        name: 'collect',
        retry: { errors: ['TransientStepError'], retries: 5, intervalSeconds: 1, backoffRate: 1.5 },
        catch: { errors: ['ValidationError', 'TransientStepError'] },
      },
      {
        name: 'score',
        retry: { errors: [], retries: 0, intervalSeconds: 1, backoffRate: 1 },
        catch: { errors: ['States.ALL'] },
      },
      {
        name: 'publish',
        retry: { errors: ['States.ALL'], retries: 0, intervalSeconds: 10, backoffRate: 3 },
        catch: { errors: [] },
      },
    ],
    onFailure: 'note-failure',
  };

  it('maps any policy step by step', () => {
    // Prepare
    const stack = bareStack();
    const stepRunner = new LambdaFunction(stack, 'StepRunner', {
      runtime: Runtime.NODEJS_24_X,
      handler: 'index.runWorkflowStep',
      code: Code.fromInline('export const runWorkflowStep = async () => ({})'),
    });

    // Act
    new StateMachine(stack, 'StateMachine', {
      definitionBody: DefinitionBody.fromChainable(defineWorkflow(stack, policy, stepRunner)),
    });
    const [resource] = Object.values(Template.fromStack(stack).findResources('AWS::StepFunctions::StateMachine'));
    const rendered = JSON.stringify(renderDefinition(resource?.Properties.DefinitionString, '§'));
    const definition = JSON.parse(rendered.replaceAll('"§"', `"${STEP_RUNNER}"`).replaceAll('§', 'aws'));

    // Assess
    expectDefinitionOf(definition, policy);
  });
});

describe('Function: readWorkflowsDocument', () => {
  interface EditableStep {
    name: string;
    retry: { errors: string[]; retries: number; intervalSeconds: number; backoffRate: number };
    catch: { errors: string[] };
  }
  interface EditableWorkflow {
    name: string;
    schedule: string | null;
    steps: EditableStep[];
    onFailure: string;
  }
  interface EditableDocument {
    version: number;
    workflows: EditableWorkflow[];
  }

  const valid: EditableDocument = JSON.parse(readFileSync(WORKFLOWS_DOCUMENT_PATH, 'utf8'));
  /** The committed document with its first workflow (and that workflow's first step) changed. */
  const variant = (change: (workflow: EditableWorkflow, step: EditableStep, document: EditableDocument) => void) => {
    const document = structuredClone(valid);
    const workflow = document.workflows[0];
    const step = workflow?.steps[0];
    if (workflow === undefined || step === undefined) throw new Error('the committed document has no step');
    change(workflow, step, document);
    return document;
  };

  it('reads the committed document', () => {
    // Act & Assess
    expect(readWorkflowsDocument(valid).workflows.map(({ name }) => name)).toContain('retention-sweep');
  });

  it.each([
    ['an unknown version', variant((_w, _s, document) => Object.assign(document, { version: 2 })), /version/],
    ['a step named twice', variant((workflow, step) => workflow.steps.push(structuredClone(step))), /appears twice/],
    [
      'a failure step that is also a step',
      variant((workflow, step) => Object.assign(workflow, { onFailure: step.name })),
      /must not also be a step/,
    ],
    [
      'States.ALL beside other errors',
      variant((_w, step) => Object.assign(step, { catch: { errors: ['States.ALL', 'ValidationError'] } })),
      /stand alone/,
    ],
    ['a backoff rate below 1', variant((_w, step) => Object.assign(step.retry, { backoffRate: 0.5 })), /backoffRate/],
    [
      'a schedule that is no Scheduler expression',
      variant((workflow) => Object.assign(workflow, { schedule: 'every day' })),
      /Scheduler expression/,
    ],
    ['a workflow without steps', variant((workflow) => Object.assign(workflow, { steps: [] })), /steps/],
    [
      'a name that cannot name a state machine',
      variant((workflow) => Object.assign(workflow, { name: 'Retention Sweep' })),
      /kebab-case/,
    ],
  ])('refuses %s', (_, document, message) => {
    // Act & Assess
    expect(() => readWorkflowsDocument(document)).toThrow(message);
  });
});
