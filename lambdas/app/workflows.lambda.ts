/**
 * The task every workflow state machine invokes, once per attempt of each step: `{ workflow, step, runId,
 * input }` in, the next step's input out. Retry and catch are the state machine's, built from the same
 * policy the local runner follows. It serves every capability's workflows, so it is built from every module
 * that declares one.
 */
import { awsApplication } from '../composition/aws-application.ts';
import { CAPABILITIES } from './capabilities.ts';

const workflows = await awsApplication(
  process.env,
  CAPABILITIES.filter((module) => (module.workflows ?? []).length > 0),
);

export const runWorkflowStep = workflows.runWorkflowStep;
