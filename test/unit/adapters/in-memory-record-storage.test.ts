import { InMemoryRecordStore } from '../../../lambdas/adapters/memory/in-memory-record-store.ts';
import { describeHeadProjectionContract } from '../../contract/head-projection.contract.ts';
import { describeNamespaceDirectoryContract } from '../../contract/namespace-directory.contract.ts';
import { describeOutboxContract } from '../../contract/outbox.contract.ts';
import { describeRecordMaintenanceContract } from '../../contract/record-maintenance.contract.ts';
import type { CreateRecordStorage } from '../../contract/record-storage.fixture.ts';
import { describeRevisionStoreContract } from '../../contract/revision-store.contract.ts';

/** One in-memory state behind all five ports, as the unit tests use it. */
const inMemory: CreateRecordStorage = async (clock) => {
  const store = new InMemoryRecordStore({ clock });
  return {
    storage: { revisions: store, heads: store, outbox: store, directory: store, maintenance: store },
    close: async () => undefined,
  };
};

for (const describeContract of [
  describeRevisionStoreContract,
  describeHeadProjectionContract,
  describeOutboxContract,
  describeNamespaceDirectoryContract,
  describeRecordMaintenanceContract,
])
  describeContract('in-memory fake', inMemory);
