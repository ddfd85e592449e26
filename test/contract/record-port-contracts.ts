import { describeHeadProjectionContract } from './head-projection.contract.ts';
import { describeNamespaceDirectoryContract } from './namespace-directory.contract.ts';
import { describeOutboxContract } from './outbox.contract.ts';
import { describeRecordMaintenanceContract } from './record-maintenance.contract.ts';
import type { CreateRecordStorage } from './record-storage.fixture.ts';
import { describeRevisionStoreContract } from './revision-store.contract.ts';

/** The contract suite of every record port, run on one implementation of them all. */
export const describeRecordPortContracts = (name: string, create: CreateRecordStorage): void => {
  for (const describeContract of [
    describeRevisionStoreContract,
    describeHeadProjectionContract,
    describeOutboxContract,
    describeNamespaceDirectoryContract,
    describeRecordMaintenanceContract,
  ])
    describeContract(name, create);
};
