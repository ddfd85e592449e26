import { InMemoryWorkflowRunStore } from '../../../lambdas/adapters/memory/in-memory-workflow-run-store.ts';
import { describeWorkflowRunStoreContract } from '../../contract/workflow-run-store.contract.ts';

describeWorkflowRunStoreContract('in-memory fake', async () => ({
  store: new InMemoryWorkflowRunStore(),
  close: async () => undefined,
}));
