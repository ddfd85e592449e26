import { InMemorySearchIndexStore } from '../../../lambdas/adapters/memory/in-memory-search-index-store.ts';
import { describeSearchIndexStoreContract } from '../../contract/search-index-store.contract.ts';

describeSearchIndexStoreContract('in memory', async () => ({
  store: new InMemorySearchIndexStore(),
  close: async () => {},
}));
