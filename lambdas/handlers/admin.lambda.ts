/** AWS Lambda entry points for the organisation-admin operations: audit trail and workflows. */
import { AwsEnvironment, createAwsBackend } from '../adapters/create-aws-backend.ts';
import * as handlers from './admin.handlers.ts';

const backend = await createAwsBackend(AwsEnvironment.parse(process.env));

export const listAudit = handlers.listAuditHandler(backend);
export const startWorkflow = handlers.startWorkflowHandler(backend);
export const getWorkflowRun = handlers.getWorkflowRunHandler(backend);
