import { defineModule } from '../../composition/capability-module.ts';
import { AUDIT_CONSUMER, AuditConsumer, auditsKind } from './audit.consumer.ts';
import { AuditService } from './audit-service.ts';
import { auditHandlers } from './http/audit.handlers.ts';
import { listAudit } from './http/audit.operations.ts';

const ENTRY = 'lambdas/capabilities/audit/audit.lambda.ts';

/**
 * The audit trail as a capability: every committed revision recorded (its consumer), and the organisation's
 * admins reading their tenant's trail. Capabilities that decide something worth auditing (a clamp, a
 * refusal) append to the trail through the kernel's port themselves.
 */
export const auditModule = defineModule({
  name: 'audit',
  operations: [listAudit],
  consumers: [
    {
      name: AUDIT_CONSUMER,
      entry: ENTRY,
      handler: 'recordAudit',
      description: 'Records every record event in the audit trail',
      handles: auditsKind,
    },
  ],
  build: ({ kernel, http }) => {
    const audit = new AuditService({ trail: kernel.auditTrail });
    return {
      services: { audit },
      handlers: auditHandlers(audit, http),
      consumers: [new AuditConsumer({ trail: kernel.auditTrail, kinds: kernel.kinds })],
    };
  },
});
