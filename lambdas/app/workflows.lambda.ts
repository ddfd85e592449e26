/**
 * The task every workflow state machine invokes, once per attempt of each step: `{ workflow, step, runId,
 * input }` in, the next step's input out. Retry and catch are the state machine's, built from the same
 * policy the local runner follows. It serves every capability's workflows, so it is built from every module
 * that declares one (`WORKFLOW_MODULES`).
 */
import { awsApplication } from '../composition/aws-application.ts';
import { WORKFLOW_MODULES } from './workflow-modules.ts';

const workflows = await awsApplication(process.env, WORKFLOW_MODULES);

export const runWorkflowStep = workflows.runWorkflowStep;
