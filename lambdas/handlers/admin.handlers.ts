import type { Backend } from '../core/backend.ts';
import * as admin from '../http/admin.api.ts';
import { httpOperation } from '../http/http-operation.ts';
import { accepted, ok } from '../http/responses.ts';

export const startWorkflowHandler = (backend: Backend) =>
  httpOperation(admin.startWorkflow, backend).handler(async ({ scope, input }) => {
    const run = await backend.workflows.start(scope, input.params.name);
    return accepted(run, { location: `/v1/admin/workflows/runs/${run.id}` });
  });

export const getWorkflowRunHandler = (backend: Backend) =>
  httpOperation(admin.getWorkflowRun, backend).handler(async ({ scope, input }) =>
    ok(await backend.workflows.getRun(scope, input.params.runId)),
  );

export const listAuditHandler = (backend: Backend) =>
  httpOperation(admin.listAudit, backend).handler(async ({ scope, input }) => {
    const page = await backend.audit.list(scope, {
      since: input.query.since,
      cursor: input.query.cursor,
      limit: input.query.limit ?? backend.config.current().listing.defaultPageSize,
    });
    return ok({ items: page.items, nextCursor: page.nextCursor });
  });
