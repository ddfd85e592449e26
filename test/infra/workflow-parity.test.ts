import { Template } from 'aws-cdk-lib/assertions';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { DefinitionBody, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { describe, expect, it } from 'vitest';
import { InMemoryWorkflowRunStore } from '../../lambdas/adapters/memory/in-memory-workflow-run-store.ts';
import { LocalWorkflowRunner } from '../../lambdas/adapters/workflows/local-workflow-runner.ts';
import { RETENTION_SWEEP } from '../../lambdas/capabilities/housekeeping/retention-sweep.workflow.ts';
import { runWorkflowStepHandler } from '../../lambdas/composition/aws-event-handlers.ts';
import { ServiceUnavailableError } from '../../lambdas/kernel/errors/domain-error.ts';
import { ManualClock } from '../../lambdas/kernel/time/clock.ts';
import {
  type StepHandler,
  type StepInput,
  WorkflowStepExecutor,
} from '../../lambdas/kernel/workflows/workflow-step-executor.ts';
import { defineWorkflow } from '../../lib/constructs/workflows.ts';
import { WorkflowPolicy } from '../../lib/workflow-policies.ts';
import { bareStack } from './support/fixture-app.ts';
import { renderDefinition, type StateDefinition, type StateMachineDefinition } from './support/template-queries.ts';

/** The state machine CDK builds from the retention sweep's policy, as Amazon States Language. */
const stateMachineOf = (): StateMachineDefinition => {
  const stack = bareStack();
  const stepRunner = new LambdaFunction(stack, 'StepRunner', {
    runtime: Runtime.NODEJS_24_X,
    handler: 'index.runWorkflowStep',
    code: Code.fromInline('export const runWorkflowStep = async () => ({})'),
  });
  new StateMachine(stack, 'StateMachine', {
    definitionBody: DefinitionBody.fromChainable(
      defineWorkflow(stack, WorkflowPolicy.parse(RETENTION_SWEEP), stepRunner),
    ),
  });
  const [resource] = Object.values(Template.fromStack(stack).findResources('AWS::StepFunctions::StateMachine'));
  return renderDefinition(resource?.Properties.DefinitionString);
};

const errorsMatch = (names: readonly string[], error: Error) =>
  names.includes('States.ALL') || names.includes(error.name);

/**
 * Executes an ASL definition the way Step Functions does, for the subset our state machines use: Task
 * (Lambda invoke with a `{workflow, step, runId, input: $}` payload, `OutputPath: $.Payload`, `ResultPath`
 * null), Retry (per retrier: MaxAttempts, IntervalSeconds, BackoffRate), Catch with `ResultPath`, Pass with
 * `.$` parameters, Succeed and Fail. The Lambda is the real step handler the deployed function exports.
 */
const runStateMachine = async (
  definition: StateMachineDefinition,
  invoke: (payload: unknown) => Promise<unknown>,
  sleep: (milliseconds: number) => void,
): Promise<'succeeded' | 'failed'> => {
  let name = definition.StartAt;
  let data: Record<string, unknown> = {};
  for (;;) {
    const state = definition.States[name] as StateDefinition;
    if (state.Type === 'Succeed') return 'succeeded';
    if (state.Type === 'Fail') return 'failed';
    if (state.Type === 'Pass') {
      const failure = data.failure as { Error: string; Cause: string };
      const parameters = state.Parameters ?? {};
      data = {
        ...data,
        failure: { failedStep: parameters.failedStep, errorCode: failure.Error, cause: failure.Cause },
      };
      name = state.Next as string;
      continue;
    }
    const payload = state.Parameters?.Payload as { workflow: string; step: string };
    const retriesUsed = new Map<number, number>();
    let next: string | undefined;
    for (;;) {
      try {
        const output = (await invoke({
          workflow: payload.workflow,
          step: payload.step,
          runId: 'run-1',
          input: data,
        })) as Record<string, unknown>;
        if (state.ResultPath !== null) data = output;
        next = state.Next;
        break;
      } catch (error) {
        const failure = error as Error;
        const retriers = (state.Retry ?? []) as {
          ErrorEquals: string[];
          MaxAttempts: number;
          IntervalSeconds: number;
          BackoffRate: number;
        }[];
        const index = retriers.findIndex((retrier) => errorsMatch(retrier.ErrorEquals, failure));
        const retrier = retriers[index];
        const used = retriesUsed.get(index) ?? 0;
        if (retrier && used < retrier.MaxAttempts) {
          sleep(retrier.IntervalSeconds * 1000 * retrier.BackoffRate ** used);
          retriesUsed.set(index, used + 1);
          continue;
        }
        const catcher = state.Catch?.find((candidate) => errorsMatch(candidate.ErrorEquals, failure));
        if (!catcher) return 'failed';
        data = { ...data, failure: { Error: failure.name, Cause: failure.message } };
        next = catcher.Next;
        break;
      }
    }
    name = next as string;
  }
};

/** Step code scripted per scenario: how many times each step fails first, and with what. */
const scriptedSteps = (
  failures: Record<string, { times: number; error: () => Error }>,
): Record<string, StepHandler> => {
  const calls = new Map<string, number>();
  const step =
    (name: string): StepHandler =>
    async (input: StepInput) => {
      const call = (calls.get(name) ?? 0) + 1;
      calls.set(name, call);
      const failure = failures[name];
      if (failure && call <= failure.times) throw failure.error();
      return { ...input, counts: { ...input.counts, [name]: call } };
    };
  return Object.fromEntries(
    [...RETENTION_SWEEP.steps.map((s) => s.name), RETENTION_SWEEP.onFailure].map((name) => [name, step(name)]),
  );
};

const bothWays = async (failures: Record<string, { times: number; error: () => Error }>) => {
  const results = [];
  for (const engine of ['state-machine', 'local-runner'] as const) {
    const runs = new InMemoryWorkflowRunStore();
    const executor = new WorkflowStepExecutor({
      workflows: [{ policy: RETENTION_SWEEP, steps: scriptedSteps(failures) }],
      runs,
      clock: new ManualClock(),
    });
    const slept: number[] = [];
    if (engine === 'state-machine') {
      await runStateMachine(stateMachineOf(), runWorkflowStepHandler(executor), (ms) => slept.push(ms));
    } else {
      const runner = new LocalWorkflowRunner({ executor, sleep: async (ms) => void slept.push(ms) });
      await runner.start(RETENTION_SWEEP.name, 'run-1', { tenant: 'acme' });
      await runner.idle();
    }
    const run = await runs.get(engine === 'state-machine' ? null : 'acme', 'run-1');
    results.push({ status: run?.status, failedStep: run?.failedStep, steps: run?.steps, result: run?.result, slept });
  }
  return results;
};

const transient = () => new ServiceUnavailableError('briefly down');

describe('Workflows: one step list, two engines', () => {
  it.each([
    ['every step succeeds', {}],
    ['a step fails transiently twice, then succeeds', { 'purge-past-horizon': { times: 2, error: transient } }],
    [
      'a step keeps failing: retries run out, the failure is caught and recorded',
      { report: { times: 99, error: transient } },
    ],
    [
      'a step fails with an error its policy does not retry',
      { 'tombstone-expired-records': { times: 1, error: () => new TypeError('bug') } },
    ],
  ])('the state machine and the local runner record the same run when %s', async (_, failures) => {
    const [stateMachine, localRunner] = await bothWays(failures);
    expect(localRunner).toEqual(stateMachine);
    expect(stateMachine?.steps?.length).toBeGreaterThan(0);
  });

  it("retries with the policy's intervals and backoff in both", async () => {
    const [stateMachine] = await bothWays({ report: { times: 99, error: transient } });
    expect(stateMachine?.slept).toEqual([2000, 4000, 8000]);
    expect(stateMachine).toMatchObject({ status: 'failed', failedStep: 'report' });
  });
});
