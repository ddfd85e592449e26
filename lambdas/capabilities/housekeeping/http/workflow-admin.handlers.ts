import { type HttpContext, httpOperation } from '../../../http/http-operation.ts';
import { accepted, ok } from '../../../http/responses.ts';
import type { WorkflowService } from '../../../kernel/workflows/workflow-service.ts';
import * as admin from './workflow-admin.operations.ts';

/** The workflow administration handlers, by export name. */
export const workflowAdminHandlers = (workflows: WorkflowService, http: HttpContext) => ({
  startWorkflow: httpOperation(admin.startWorkflow, http).handler(async ({ scope, input }) => {
    const run = await workflows.start(scope, input.params.name);
    return accepted(run, { location: `/v1/admin/workflows/runs/${run.id}` });
  }),
  getWorkflowRun: httpOperation(admin.getWorkflowRun, http).handler(async ({ scope, input }) =>
    ok(await workflows.getRun(scope, input.params.runId)),
  ),
});
