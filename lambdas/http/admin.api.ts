import { z } from 'zod';
import { AuditEntry } from '../core/audit/audit-entry.schema.ts';
import { WorkflowRun } from '../core/workflows/workflow-run.schema.ts';
import { Cursor, ErrorResponse, PageSize, SafeName } from './api-schemas.ts';
import { defineOperation, NoBody, NoQuery, type ResponseSpec } from './operation.ts';

const ENTRY = 'lambdas/handlers/admin.lambda.ts';

const adminFailures = {
  401: { description: 'No valid bearer token', schema: ErrorResponse },
  403: { description: 'The caller is not an organisation admin', schema: ErrorResponse },
  503: { description: 'Storage unavailable', schema: ErrorResponse, headers: ['Retry-After'] },
} satisfies Record<number, ResponseSpec>;

export const startWorkflow = defineOperation({
  summary: "Start a workflow (e.g. the retention sweep) for the caller's organisation",
  tag: 'admin',
  routes: [{ operationId: 'startWorkflow', method: 'POST', path: '/v1/admin/workflows/{name}', project: false }],
  authenticated: true,
  lambda: { entry: ENTRY, handler: 'startWorkflow', access: 'write', startsWorkflows: true },
  params: z.object({ name: SafeName }).strict(),
  query: NoQuery,
  body: NoBody,
  responses: {
    202: { description: 'Started; poll the run', schema: WorkflowRun, headers: ['Location'] },
    404: { description: 'No such workflow', schema: ErrorResponse },
    ...adminFailures,
  },
});

export const getWorkflowRun = defineOperation({
  summary: 'A workflow run: its steps, attempts and outcome',
  tag: 'admin',
  routes: [{ operationId: 'getWorkflowRun', method: 'GET', path: '/v1/admin/workflows/runs/{runId}', project: false }],
  authenticated: true,
  lambda: { entry: ENTRY, handler: 'getWorkflowRun', access: 'read' },
  params: z.object({ runId: z.string().max(64) }).strict(),
  query: NoQuery,
  body: NoBody,
  responses: {
    200: { description: 'The run', schema: WorkflowRun },
    404: { description: "No such run in the caller's organisation", schema: ErrorResponse },
    ...adminFailures,
  },
});

export const AuditPage = z
  .object({ items: z.array(AuditEntry), nextCursor: z.string().optional() })
  .meta({ id: 'AuditPage' });

export const listAudit = defineOperation({
  summary: "The organisation's audit trail, oldest first",
  tag: 'admin',
  routes: [{ operationId: 'listAudit', method: 'GET', path: '/v1/audit', project: false }],
  authenticated: true,
  lambda: { entry: ENTRY, handler: 'listAudit', access: 'read' },
  params: z.object({}).strict(),
  query: z
    .object({
      since: z.iso.datetime({ error: 'since must be an ISO-8601 instant, e.g. 2026-11-30T00:00:00Z' }).optional(),
      cursor: Cursor.optional(),
      limit: PageSize.optional(),
    })
    .strict(),
  body: NoBody,
  responses: { 200: { description: 'A page of audit entries', schema: AuditPage }, ...adminFailures },
});
