import { InMemoryAuditTrail } from '../../../lambdas/adapters/memory/in-memory-audit-trail.ts';
import { describeAuditTrailContract } from '../../contract/audit-trail.contract.ts';

describeAuditTrailContract('in-memory fake', async () => ({
  trail: new InMemoryAuditTrail(),
  close: async () => undefined,
}));
