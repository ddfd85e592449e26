import { describe, expect, it } from 'vitest';
import { InMemoryWorkflowRunStore } from '../../../lambdas/adapters/memory/in-memory-workflow-run-store.ts';
import { LocalWorkflowRunner } from '../../../lambdas/adapters/workflows/local-workflow-runner.ts';
import { ServiceUnavailableError } from '../../../lambdas/kernel/errors/domain-error.ts';
import { ManualClock } from '../../../lambdas/kernel/time/clock.ts';
import {
  CATCH_ALL,
  STANDARD_RETRY,
  type WorkflowPolicy,
} from '../../../lambdas/kernel/workflows/workflow-definition.ts';
import {
  type StepHandler,
  TransientStepError,
  WorkflowStepExecutor,
} from '../../../lambdas/kernel/workflows/workflow-step-executor.ts';

const policy: WorkflowPolicy = {
  name: 'demo',
  description: 'three steps',
  schedule: null,
  steps: [
    { name: 'first', retry: STANDARD_RETRY, catch: CATCH_ALL },
    { name: 'second', retry: STANDARD_RETRY, catch: CATCH_ALL },
    { name: 'third', retry: { ...STANDARD_RETRY, retries: 0 }, catch: { errors: ['SomethingElse'] } },
  ],
  onFailure: 'record-failure',
};

const setUp = (steps: Record<string, StepHandler>) => {
  const runs = new InMemoryWorkflowRunStore();
  const slept: number[] = [];
  const executor = new WorkflowStepExecutor({
    workflows: [{ policy, steps: { 'record-failure': async (input) => input, ...steps } }],
    runs,
    clock: new ManualClock(),
  });
  const runner = new LocalWorkflowRunner({
    executor,
    sleep: async (milliseconds) => {
      slept.push(milliseconds);
    },
  });
  return { runs, slept, runner };
};

/** A step that fails with `error` the first `failures` times it runs. */
const failing = (failures: number, error: () => Error): StepHandler => {
  let calls = 0;
  return async (input) => {
    calls += 1;
    if (calls <= failures) throw error();
    return { ...input, counts: { ...input.counts, [`calls${calls}`]: calls } };
  };
};

const pass: StepHandler = async (input) => input;

describe('Class: LocalWorkflowRunner', () => {
  it("runs the steps in order and records each run's steps and outcome", async () => {
    const { runs, runner } = setUp({
      first: pass,
      second: pass,
      third: async (input) => ({ ...input, counts: { done: 1 } }),
    });

    await runner.start('demo', 'run-1', { tenant: 'acme' });
    await runner.idle();

    expect(await runs.get('acme', 'run-1')).toMatchObject({
      status: 'succeeded',
      trigger: 'admin',
      steps: [
        { name: 'first', attempts: 1, status: 'succeeded' },
        { name: 'second', attempts: 1, status: 'succeeded' },
        { name: 'third', attempts: 1, status: 'succeeded' },
      ],
      result: { done: 1 },
    });
  });

  it("retries a transiently failing step per its policy, with the policy's intervals and backoff", async () => {
    const { runs, slept, runner } = setUp({
      first: failing(2, () => new ServiceUnavailableError('storage busy')),
      second: pass,
      third: pass,
    });

    await runner.start('demo', 'run-2', { tenant: 'acme' });
    await runner.idle();

    expect(slept).toEqual([2000, 4000]);
    expect((await runs.get('acme', 'run-2'))?.steps[0]).toEqual({ name: 'first', attempts: 3, status: 'succeeded' });
    expect((await runs.get('acme', 'run-2'))?.status).toBe('succeeded');
  });

  it('catches a step that keeps failing after its retries and records the failure', async () => {
    const { runs, slept, runner } = setUp({
      first: pass,
      second: failing(99, () => new TransientStepError('still down')),
      third: pass,
    });

    await runner.start('demo', 'run-3', { tenant: 'acme' });
    await runner.idle();

    const run = await runs.get('acme', 'run-3');
    expect(slept).toEqual([2000, 4000, 8000]);
    expect(run).toMatchObject({ status: 'failed', failedStep: 'second' });
    expect(run?.steps).toEqual([
      { name: 'first', attempts: 1, status: 'succeeded' },
      { name: 'second', attempts: 4, status: 'failed', errorCode: 'TransientStepError' },
      { name: 'record-failure', attempts: 1, status: 'succeeded' },
    ]);
  });

  it('does not retry an error the policy does not list', async () => {
    const { runs, slept, runner } = setUp({
      first: failing(1, () => new TypeError('a bug')),
      second: pass,
      third: pass,
    });

    await runner.start('demo', 'run-4', { tenant: 'acme' });
    await runner.idle();

    expect(slept).toEqual([]);
    expect(await runs.get('acme', 'run-4')).toMatchObject({ status: 'failed', failedStep: 'first' });
  });

  it('leaves a run unfinished when an error escapes the catch policy, as the state machine would fail', async () => {
    const { runs, runner } = setUp({ first: pass, second: pass, third: failing(1, () => new TypeError('uncaught')) });

    await runner.start('demo', 'run-5', { tenant: 'acme' });
    await runner.idle();

    const run = await runs.get('acme', 'run-5');
    expect(run?.status).toBe('running');
    expect(run?.steps.at(-1)).toEqual({ name: 'third', attempts: 1, status: 'failed', errorCode: 'TypeError' });
  });
});
