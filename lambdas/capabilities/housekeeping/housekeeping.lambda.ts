/**
 * AWS Lambda entry points for the organisation-admin workflow operations (start a workflow, read a run).
 * Built from the housekeeping module alone; the steps themselves run in the workflow function.
 */
import { awsApplication } from '../../composition/aws-application.ts';
import { stepFunctionsStarter } from '../../composition/aws-bus-and-workflows.ts';
import { housekeepingModule } from './housekeeping.module.ts';

const housekeeping = await awsApplication(process.env, [housekeepingModule], { workflowStarter: stepFunctionsStarter });

export const startWorkflow = housekeeping.handler('startWorkflow');
export const getWorkflowRun = housekeeping.handler('getWorkflowRun');
