import { type CfnElement, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { StepFunctionsStartExecution } from 'aws-cdk-lib/aws-scheduler-targets';
import {
  Chain,
  DefinitionBody,
  Fail,
  type IChainable,
  JsonPath,
  LogLevel,
  Pass,
  StateMachine,
  StateMachineType,
  Succeed,
  TaskInput,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { type BackendResources, backendEnvironment, grantBackendAccess } from '../backend-access.ts';
import { pascalCase } from '../construct-ids.ts';
import type { StepPolicy, WorkflowPolicy, WorkflowsDocument } from '../workflow-policies.ts';
import { DeadLetterQueue } from './dead-letter-queue.ts';
import { ServiceFunction } from './service-function.ts';

/** The export of the workflows' entry module that runs one step. */
export const WORKFLOW_STEP_HANDLER = 'runWorkflowStep';

/** Names of the states that end a run. */
export const SUCCEEDED_STATE = 'succeeded';
export const FAILED_STATE = 'failed';
/** Where a caught error is put in the failed step's input, for the onFailure step. */
export const FAILURE_PATH = '$.failure';
const FAILURE_ERROR_PATH = `${FAILURE_PATH}.errorCode`;
const FAILURE_CAUSE_PATH = `${FAILURE_PATH}.cause`;
/** The state that shapes a caught error of `step` for the failure step. */
export const caughtStateOf = (step: string): string => `${step}-caught`;

/*
 * How a workflow policy becomes a state machine (the local runner, `executeWorkflow`, mirrors this):
 *
 *   step 1 ──▶ step 2 ──▶ … ──▶ step n ──▶ succeeded (Succeed: the run's output is step n's output)
 *     │ catch    │ catch          │ catch
 *     ▼          ▼                ▼
 *   step-1-caught (Pass) …      step-n-caught ──▶ onFailure step ──▶ failed (Fail: failure.errorCode, failure.cause)
 *
 * - Every step, and the onFailure step, is one invocation of the workflow function with the payload
 *   `{ workflow, step, runId, input }`: `runId` is the execution name, `input` the state's input. The first
 *   step's input is the execution input (`{}` when scheduled); each next step's input is what the previous
 *   step returned (a JSON object).
 * - A step's Retry is its policy's: `ErrorEquals` = retry.errors, `MaxAttempts` = retry.retries (retries
 *   after the first attempt), `IntervalSeconds`, `BackoffRate`. Lambda service errors are not retried
 *   beyond that (`retryOnServiceExceptions: false`). Error names are the `name` of the error the step throws.
 * - A step's Catch is its policy's `catch.errors`, taken once retries are exhausted (or for errors not
 *   retried). The caught error is put beside the step's input (`ResultPath: $.failure`) and the step's own
 *   caught state shapes it, so the onFailure step's `input` is the failed step's input plus
 *   `failure: { failedStep, errorCode, cause }` (`errorCode`: the error's name; `cause`: Step Functions'
 *   Cause, for a Lambda error the JSON of its message and stack trace). The onFailure step has no retry or
 *   catch; its result is discarded and the run fails with `errorCode` as error and `cause` as cause.
 */

/** The payload of one step: what `runWorkflowStep` receives. */
function stepPayload(workflow: string, step: string, input: string): TaskInput {
  return TaskInput.fromObject({ workflow, step, runId: JsonPath.executionName, input });
}

function invokeStep(scope: Construct, workflow: string, step: string, stepFunction: IFunction): LambdaInvoke {
  return new LambdaInvoke(scope, step, {
    comment: `${workflow}: ${step}`,
    lambdaFunction: stepFunction,
    payload: stepPayload(workflow, step, JsonPath.entirePayload),
    // The step's returned value is the next state's input.
    outputPath: '$.Payload',
    retryOnServiceExceptions: false,
  });
}

/**
 * The state machine definition of one workflow policy, built from CDK's Step Functions states in `scope`
 * (each state is a construct; state names are step names, so they must be unique in the workflow).
 */
export function defineWorkflow(scope: Construct, policy: WorkflowPolicy, stepFunction: IFunction): IChainable {
  const onFailure = new LambdaInvoke(scope, policy.onFailure, {
    comment: `${policy.name}: records a caught failure`,
    lambdaFunction: stepFunction,
    payload: stepPayload(policy.name, policy.onFailure, JsonPath.entirePayload),
    // Keep the input, and its `failure`, for the Fail state.
    resultPath: JsonPath.DISCARD,
    retryOnServiceExceptions: false,
  }).next(new Fail(scope, FAILED_STATE, { errorPath: FAILURE_ERROR_PATH, causePath: FAILURE_CAUSE_PATH }));

  const tasks = policy.steps.map((step: StepPolicy) => {
    const task = invokeStep(scope, policy.name, step.name, stepFunction);
    if (step.retry.errors.length > 0) {
      task.addRetry({
        errors: [...step.retry.errors],
        maxAttempts: step.retry.retries,
        interval: Duration.seconds(step.retry.intervalSeconds),
        backoffRate: step.retry.backoffRate,
      });
    }
    if (step.catch.errors.length > 0) {
      const caught = new Pass(scope, caughtStateOf(step.name), {
        comment: `${step.name} failed: shapes the caught error for ${policy.onFailure}`,
        parameters: {
          failedStep: step.name,
          errorCode: JsonPath.stringAt(`${FAILURE_PATH}.Error`),
          cause: JsonPath.stringAt(`${FAILURE_PATH}.Cause`),
        },
        resultPath: FAILURE_PATH,
      });
      caught.next(onFailure);
      task.addCatch(caught, { errors: [...step.catch.errors], resultPath: FAILURE_PATH });
    }
    return task;
  });

  const [first, ...rest] = tasks;
  if (first === undefined) throw new Error(`Workflow ${policy.name} has no steps`);
  let chain = Chain.start(first);
  for (const task of rest) chain = chain.next(task);
  return chain.next(new Succeed(scope, SUCCEEDED_STATE));
}

export interface WorkflowStateMachineProps {
  readonly policy: WorkflowPolicy;
  /** Deployment stage; the state machine is `memory-hub-{stage}-{workflow}`. */
  readonly stage: string;
  /** The function that runs every step. */
  readonly stepFunction: IFunction;
  /** Where a scheduled start that could not be made is recorded; required when the policy has a schedule. */
  readonly scheduleDeadLetterQueue?: DeadLetterQueue;
  /** @default Duration.hours(1) */
  readonly timeout?: Duration;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
}

/**
 * One workflow: a STANDARD state machine built from its policy, logging every execution event without
 * execution data (inputs and outputs may hold tenant data) to a log group with retention, traced with
 * X-Ray; and, when the policy has a schedule, an EventBridge Scheduler schedule starting it with `{}`.
 */
export class WorkflowStateMachine extends Construct {
  public readonly stateMachine: StateMachine;
  public readonly logGroup: LogGroup;
  public readonly schedule: Schedule | undefined;

  constructor(scope: Construct, id: string, props: WorkflowStateMachineProps) {
    super(scope, id);
    const { policy } = props;
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineName: `memory-hub-${props.stage}-${policy.name}`,
      comment: policy.description,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(defineWorkflow(this, policy, props.stepFunction)),
      timeout: props.timeout ?? Duration.hours(1),
      tracingEnabled: true,
      logs: { destination: this.logGroup, level: LogLevel.ALL, includeExecutionData: false },
    });
    const stepFunctionLogicalId = Stack.of(this).getLogicalId(props.stepFunction.node.defaultChild as CfnElement);
    Validations.of(this.stateMachine.role).acknowledge(
      {
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${stepFunctionLogicalId}.Arn>:*]`,
        reason:
          'From the LambdaInvoke tasks: invoking the one workflow function, any of its versions or aliases (`:*`), and nothing else.',
      },
      {
        id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
        reason:
          'Added by StateMachine for logging and tracing: CloudWatch Logs log delivery and X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level permissions.',
      },
    );

    if (policy.schedule !== null) {
      if (props.scheduleDeadLetterQueue === undefined) {
        throw new Error(`${this.node.path}: a scheduled workflow needs a dead-letter queue for its starts`);
      }
      this.schedule = new Schedule(this, 'Schedule', {
        description: `Starts ${policy.name}: ${policy.schedule}`,
        schedule: ScheduleExpression.expression(policy.schedule),
        target: new StepFunctionsStartExecution(this.stateMachine, {
          input: ScheduleTargetInput.fromObject({}),
          retryAttempts: 3,
          maxEventAge: Duration.hours(1),
          deadLetterQueue: props.scheduleDeadLetterQueue.queue,
        }),
      });
    }
  }
}

export interface WorkflowsProps extends BackendResources {
  /** The parsed `workflows.json`. */
  readonly document: WorkflowsDocument;
  /** Absolute path of the entry module exporting `runWorkflowStep`. */
  readonly entry: string;
  /** The bus steps may publish to. */
  readonly eventBus: IEventBus;
  /** @default Duration.minutes(5) */
  readonly stepTimeout?: Duration;
}

/**
 * The workflows of `workflows.json`: one function that runs any step (`runWorkflowStep`), and one state
 * machine per workflow, scheduled when the policy says so.
 */
export class Workflows extends Construct {
  public readonly stepRunner: ServiceFunction;
  /** By workflow name. */
  public readonly workflows: ReadonlyMap<string, WorkflowStateMachine>;
  /** By workflow name. */
  public readonly stateMachines: ReadonlyMap<string, StateMachine>;
  /** Scheduled starts that failed after retries; only when a workflow is scheduled. */
  public readonly scheduleDeadLetterQueue: DeadLetterQueue | undefined;

  constructor(scope: Construct, id: string, props: WorkflowsProps) {
    super(scope, id);
    this.stepRunner = new ServiceFunction(this, 'StepRunner', {
      entry: props.entry,
      handler: WORKFLOW_STEP_HANDLER,
      description:
        `Runs one workflow step (${props.document.workflows.map((workflow) => workflow.name).join(', ')})`.slice(
          0,
          256,
        ),
      synchronous: false,
      timeout: props.stepTimeout ?? Duration.minutes(5),
      environment: {
        ...backendEnvironment(props, 'write'),
        MEMORY_HUB_EVENT_BUS_NAME: props.eventBus.eventBusName,
      },
      readsParameters: true,
    });
    grantBackendAccess(this.stepRunner, props, 'write');
    props.eventBus.grantPutEventsTo(this.stepRunner.role);
    Validations.of(this.stepRunner.function).acknowledge({
      id: 'Serverless::Serverless-LambdaDLQ',
      reason:
        'Invoked synchronously by the state machines (lambda:invoke, request-response): each step’s retries and catch are in the workflow definition, and a failed run stays visible in its execution history.',
    });

    this.scheduleDeadLetterQueue = props.document.workflows.some((workflow) => workflow.schedule !== null)
      ? new DeadLetterQueue(this, 'ScheduleFailures', {
          holds: 'scheduled workflow starts that could not be made after retries: the schedule and its {} input',
        })
      : undefined;
    const workflows = new Map<string, WorkflowStateMachine>();
    for (const policy of props.document.workflows) {
      workflows.set(
        policy.name,
        new WorkflowStateMachine(this, pascalCase(policy.name), {
          policy,
          stage: props.stage,
          stepFunction: this.stepRunner.function,
          ...(this.scheduleDeadLetterQueue ? { scheduleDeadLetterQueue: this.scheduleDeadLetterQueue } : {}),
        }),
      );
    }
    this.workflows = workflows;
    this.stateMachines = new Map([...workflows].map(([name, workflow]) => [name, workflow.stateMachine]));
  }
}
