import * as z from 'zod';
import { ErrorResponse, RecordId, SafeName } from '../../../http/api-schemas.ts';
import { ADMIN_FAILURES } from '../../../http/common-responses.ts';
import { defineOperation, NoBody, NoQuery } from '../../../http/operation.ts';
import { WorkflowRun } from '../../../kernel/workflows/workflow-run.schema.ts';

const ENTRY = 'lambdas/capabilities/housekeeping/housekeeping.lambda.ts';

export const startWorkflow = defineOperation({
  summary: "Start a workflow (e.g. the retention sweep) for the caller's organisation",
  tag: 'admin',
  routes: [{ operationId: 'startWorkflow', method: 'POST', path: '/v1/admin/workflows/{name}', project: false }],
  authenticated: true,
  requiredScope: 'memory-hub/memory.admin',
  lambda: { entry: ENTRY, handler: 'startWorkflow', access: 'write', startsWorkflows: true },
  params: z.object({ name: SafeName }).strict(),
  query: NoQuery,
  body: NoBody,
  responses: {
    202: { description: 'Started; poll the run', schema: WorkflowRun, headers: ['Location'] },
    404: { description: 'No such workflow', schema: ErrorResponse },
    ...ADMIN_FAILURES,
  },
});

export const getWorkflowRun = defineOperation({
  summary: 'A workflow run: its steps, attempts and outcome',
  tag: 'admin',
  routes: [{ operationId: 'getWorkflowRun', method: 'GET', path: '/v1/admin/workflows/runs/{runId}', project: false }],
  authenticated: true,
  requiredScope: 'memory-hub/memory.admin',
  lambda: { entry: ENTRY, handler: 'getWorkflowRun', access: 'read' },
  params: z.object({ runId: RecordId }).strict(),
  query: NoQuery,
  body: NoBody,
  responses: {
    200: { description: 'The run', schema: WorkflowRun },
    404: { description: "No such run in the caller's organisation", schema: ErrorResponse },
    ...ADMIN_FAILURES,
  },
});

/** In the order the OpenAPI document lists them. */
export const WORKFLOW_ADMIN_OPERATIONS = [startWorkflow, getWorkflowRun] as const;
