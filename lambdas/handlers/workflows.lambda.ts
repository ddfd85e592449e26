/**
 * The task every workflow state machine invokes, once per attempt of each step: `{ workflow, step, runId,
 * input }` in, the next step's input out. Retry and catch are the state machine's, built from the same
 * policy the local runner follows.
 */
import { AwsEnvironment, createAwsBackend } from '../adapters/create-aws-backend.ts';
import { runWorkflowStepHandler } from './workflows.handlers.ts';

const backend = await createAwsBackend(AwsEnvironment.parse(process.env));

export const runWorkflowStep = runWorkflowStepHandler(backend.system.workflowSteps);
