import { InMemoryRecordStore } from '../../../lambdas/adapters/memory/in-memory-record-store.ts';
import { describeRecordStoreContract } from '../../contract/record-store.contract.ts';

describeRecordStoreContract('in-memory fake', async (clock) => ({
  store: new InMemoryRecordStore({ clock }),
  close: async () => undefined,
}));
