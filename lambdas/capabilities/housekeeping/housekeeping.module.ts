import { defineModule } from '../../composition/capability-module.ts';
import { housekeepingSettings } from './housekeeping.config.ts';
import { workflowAdminHandlers } from './http/workflow-admin.handlers.ts';
import { WORKFLOW_ADMIN_OPERATIONS } from './http/workflow-admin.operations.ts';
import { RETENTION_SWEEP, retentionSweep } from './retention-sweep.workflow.ts';

/**
 * The organisation's housekeeping: the retention sweep that makes expiry visible and bounded, and the admin
 * operations that start any workflow of the service and read its runs.
 */
export const housekeepingModule = defineModule({
  name: 'housekeeping',
  operations: WORKFLOW_ADMIN_OPERATIONS,
  config: [housekeepingSettings],
  workflows: [RETENTION_SWEEP],
  build: ({ kernel, http }) => ({
    services: {},
    handlers: workflowAdminHandlers(kernel.workflows, http),
    workflows: [
      retentionSweep({
        revisions: kernel.revisions,
        maintenance: kernel.maintenance,
        directory: kernel.directory,
        clock: kernel.clock,
        writer: kernel.writer,
        kinds: kernel.kinds,
        purgeAfterDays: () => housekeepingSettings.of(kernel.config.current()).purgeAfterDays,
      }),
    ],
  }),
});
