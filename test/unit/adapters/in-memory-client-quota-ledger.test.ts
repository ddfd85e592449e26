import { InMemoryClientQuotaLedger } from '../../../lambdas/adapters/memory/in-memory-client-quota-ledger.ts';
import { describeClientQuotaLedgerContract } from '../../contract/client-quota-ledger.contract.ts';

describeClientQuotaLedgerContract('in-memory fake', async () => ({
  ledger: new InMemoryClientQuotaLedger(),
  close: async () => undefined,
}));
