import { InMemoryRecordStore } from '../../../lambdas/adapters/memory/in-memory-record-store.ts';
import { describeRecordPortContracts } from '../../contract/record-port-contracts.ts';
import type { CreateRecordStorage } from '../../contract/record-storage.fixture.ts';

/** One in-memory state behind all five ports, as the unit tests use it. */
const inMemory: CreateRecordStorage = async (clock) => {
  const store = new InMemoryRecordStore({ clock });
  return {
    storage: { revisions: store, heads: store, outbox: store, directory: store, maintenance: store },
    close: async () => undefined,
  };
};

describeRecordPortContracts('in-memory fake', inMemory);
